package evidence

import (
	"reflect"
	"testing"
)

// Chinese text has no spaces between words and ends its sentences with
// 。！？: a passage is split into its sentences, and a claim is supported
// by the sentence that says it (in its words or others), not found
// unsupported because the text is one unbroken run of characters.
var qingshi = []Passage{
	{N: 1, Title: "青石镇的石拱桥", Text: "青石镇的石拱桥\n\n青石镇位于一条缓慢流淌的河流北岸，镇上最有名的建筑是一座五孔石拱桥。据镇志记载，这座桥始建于1587年，当时的工匠从上游的山里开采青灰色的石料。每一块石料都经过仔细打磨！桥上能走马车吗？"},
	{N: 2, Title: "集市", Text: "每逢农历初一和十五，镇上都有集市。茶叶和竹器是最常见的货物。"},
}

func TestAlignChinese(t *testing.T) {
	if got := len(Sentences(qingshi[0].Text)); got != 5 {
		t.Errorf("%d sentences in passage 1, want 5 (a heading, then 。！？ end four)", got)
	}
	for _, c := range []struct {
		answer  string
		verdict Verdict
		quotes  []string
	}{
		{"这座桥始建于1587年 [1]。", Supported, []string{"据镇志记载，这座桥始建于1587年，当时的工匠从上游的山里开采青灰色的石料。"}},
		{"石拱桥建于1587年[1]。", Supported, []string{"据镇志记载，这座桥始建于1587年，当时的工匠从上游的山里开采青灰色的石料。"}},
		// "twice a month" for "on the first and the fifteenth": the market
		// sentence, weakly (as an English paraphrase would be).
		{"镇上的集市每月两次 [2]。", Weak, []string{"每逢农历初一和十五，镇上都有集市。"}},
		{"这座桥是用钢铁建造的 [2]。", Unsupported, nil},
	} {
		got := Align(c.answer, qingshi)
		if len(got) != 1 || got[0].Verdict != c.verdict || !reflect.DeepEqual(quoteTexts(got[0]), c.quotes) {
			t.Errorf("%s: %+v, want %s %q", c.answer, got, c.verdict, c.quotes)
			continue
		}
		for _, q := range got[0].Support {
			if p := qingshi[q.N-1]; p.Text[q.Start:q.End] != q.Quote {
				t.Errorf("quote %q is not at [%d:%d] of passage %d", q.Quote, q.Start, q.End, q.N)
			}
		}
	}
	if Quotable("青石镇的石拱桥") || !Quotable("每逢农历初一和十五，镇上都有集市。") {
		t.Error("a Chinese heading is quotable, or a Chinese sentence is not")
	}
}
