package local

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sharedData finds ../shared/data next to the repository root by walking up
// from the working directory; "" when it is absent (a user's machine).
func sharedData(t testing.TB, rel string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "data", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

var (
	trecDocRE   = regexp.MustCompile(`(?s)<DOC>\s*<DOCNO>\s*(.*?)\s*</DOCNO>(.*?)</DOC>`)
	trecTopicRE = regexp.MustCompile(`(?s)<top>\s*<num>\s*(.*?)\s*</num>\s*<title>(.*?)</title>`)
)

// vaswaniJSONL converts the TREC documents to a .jsonl corpus file.
func vaswaniJSONL(t testing.TB, dataDir, out string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dataDir, "doc-text.trec"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, m := range trecDocRE.FindAllSubmatch(raw, -1) {
		if err := enc.Encode(map[string]string{"id": string(m[1]), "title": "", "text": strings.TrimSpace(string(m[2]))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

type topic struct{ id, text string }

func vaswaniTopics(t testing.TB, dataDir string) ([]topic, map[string]map[string]int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dataDir, "query-text.trec"))
	if err != nil {
		t.Fatal(err)
	}
	var topics []topic
	for _, m := range trecTopicRE.FindAllSubmatch(raw, -1) {
		topics = append(topics, topic{id: string(m[1]), text: strings.TrimSpace(string(m[2]))})
	}
	qrels := make(map[string]map[string]int)
	qf, err := os.ReadFile(filepath.Join(dataDir, "qrels"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(qf), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[3] == "0" {
			continue
		}
		if qrels[f[0]] == nil {
			qrels[f[0]] = make(map[string]int)
		}
		qrels[f[0]][f[2]] = 1
	}
	return topics, qrels
}

// ndcgAt is nDCG@k with binary gains.
func ndcgAt(ranked []string, rel map[string]int, k int) float64 {
	dcg := 0.0
	for i, id := range ranked {
		if i >= k {
			break
		}
		if rel[id] > 0 {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	ideal := 0.0
	for i := 0; i < len(rel) && i < k; i++ {
		ideal += 1 / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

func TestVaswaniNDCG(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 11k abstracts")
	}
	data := sharedData(t, "ir/vaswani-npl")
	if data == "" {
		t.Skip("../shared/data/ir/vaswani-npl is absent")
	}
	src, dir := t.TempDir(), t.TempDir()
	vaswaniJSONL(t, data, filepath.Join(src, "vaswani.jsonl"))
	rep := mustIndex(t, dir, "vaswani", src)
	if rep.Passages != 11429 || len(rep.Failed) != 0 {
		t.Fatalf("report: %d passages, failures %v", rep.Passages, rep.Failed)
	}
	t.Logf("indexed %d passages in %v (%.0f/s)", rep.Passages, rep.Duration, float64(rep.Passages)/rep.Duration.Seconds())
	topics, qrels := vaswaniTopics(t, data)
	for _, boost := range []float64{0} {
		c, err := OpenWith(dir, "vaswani", Options{TitleBoost: boost})
		if err != nil {
			t.Fatal(err)
		}
		sum, n := 0.0, 0
		for _, tp := range topics {
			if len(qrels[tp.id]) == 0 {
				continue
			}
			docs, err := c.Search(context.Background(), tp.text, 10)
			if err != nil {
				t.Fatal(err)
			}
			sum += ndcgAt(ids(docs), qrels[tp.id], 10)
			n++
		}
		c.Close()
		score := sum / float64(n)
		t.Logf("nDCG@10 over %d topics = %.4f", n, score)
		if score < 0.42 {
			t.Errorf("nDCG@10 = %.4f, want >= 0.42", score)
		}
	}
}

// TestHotpotQATitleBoost pools the paragraphs of 500 HotpotQA questions into
// one corpus and measures supporting-paragraph recall@k with the title boost
// off and at two weights; the numbers are logged for the report.
func TestHotpotQATitleBoost(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 4.9k paragraphs")
	}
	data := sharedData(t, "multihop/hotpotqa-ircot-dev500/dev_subsampled.jsonl")
	if data == "" {
		t.Skip("../shared/data/multihop/hotpotqa-ircot-dev500 is absent")
	}
	raw, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	type question struct {
		text       string
		supporting []string
	}
	var questions []question
	seen := map[string]bool{}
	var recs []map[string]string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var q struct {
			Question string `json:"question_text"`
			Contexts []struct {
				Title      string `json:"title"`
				Text       string `json:"paragraph_text"`
				Supporting bool   `json:"is_supporting"`
			} `json:"contexts"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		qq := question{text: q.Question}
		for _, c := range q.Contexts {
			id := c.Title
			if !seen[id] {
				seen[id] = true
				recs = append(recs, map[string]string{"id": id, "title": c.Title, "text": c.Text})
			}
			if c.Supporting {
				qq.supporting = append(qq.supporting, id)
			}
		}
		questions = append(questions, qq)
	}
	src, dir := t.TempDir(), t.TempDir()
	writeJSONL(t, filepath.Join(src, "hotpot.jsonl"), recs)
	rep := mustIndex(t, dir, "hotpot", src)
	t.Logf("%d questions, %d unique paragraphs, %d passages, %d failures", len(questions), len(recs), rep.Passages, len(rep.Failed))
	recall := map[float64][2]float64{}
	for _, boost := range []float64{0, 0.5, 1} {
		c, err := OpenWith(dir, "hotpot", Options{TitleBoost: boost})
		if err != nil {
			t.Fatal(err)
		}
		var r5, r10 float64
		for _, q := range questions {
			docs, err := c.Search(context.Background(), q.text, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range q.supporting {
				for i, d := range docs {
					if d.ID == s || strings.HasPrefix(d.ID, s+"#") {
						w := 1 / float64(len(q.supporting))
						r10 += w
						if i < 5 {
							r5 += w
						}
						break
					}
				}
			}
		}
		c.Close()
		n := float64(len(questions))
		recall[boost] = [2]float64{r5 / n, r10 / n}
		t.Logf("title boost %.1f: supporting recall@5 %.4f, recall@10 %.4f", boost, r5/n, r10/n)
	}
	if recall[0][1] < 0.6 {
		t.Errorf("recall@10 without title boost = %.4f, want >= 0.6", recall[0][1])
	}
}
