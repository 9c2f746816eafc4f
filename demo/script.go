package demo

import "strings"

// sample is one question the scripted model knows: the searches it makes,
// each until the observations hold the fact the step needs, then its
// answer, whose citations are the numbers the documents got in the run.
type sample struct {
	question string
	// match finds the question in a prompt (lower case; every word).
	match []string
	steps []scriptStep
	// answer is the Final Answer; {Title} stands for the citation of the
	// document of that title ("[n]").
	answer      string
	explanation string
	// followUps are follow-up questions it rewrites: {as typed, lower
	// case; the standalone question}.
	followUps [][2]string
}

// scriptStep is one search of a sample.
type scriptStep struct {
	thought, query string
	// need is what the observations must say for the step to be done.
	need string
	// judgeYes and judgeNo are the judge's analysis when the new documents
	// do or do not say it.
	judgeYes, judgeNo string
}

// samples are the demo's questions. The first goes to the web stand-in for
// its second half; the second is answered from the corpus alone; the third
// is the follow-up of the first.
var samples = []sample{
	{
		question: "Who designed the Tarn Point lighthouse, and in what year was its keeper's cottage rebuilt?",
		match:    []string{"designed", "tarn point", "cottage", "rebuilt"},
		steps: []scriptStep{
			{
				thought:  "The question has two parts. First I need the engineer who designed the Tarn Point lighthouse.",
				query:    "Tarn Point lighthouse designer",
				need:     "designed in 1884",
				judgeYes: "Nothing was known before. The new documents name Maren Osk as the harbour engineer who designed the Tarn Point lighthouse in 1884, which is the first half of the question.",
				judgeNo:  "The new documents describe the cape and the harbour but do not say who designed the lighthouse.",
			},
			{
				thought:  "Maren Osk designed the lighthouse. Now I need the year the keeper's cottage was rebuilt.",
				query:    "Tarn Point keeper's cottage rebuilt",
				need:     "rebuilt in 1963",
				judgeYes: "The new documents give the year the keeper's cottage was rebuilt, the second half of the question.",
				judgeNo:  "The new documents say the keeper's cottage was wrecked by the storm of November 1961 and who lived in it, but not when it was rebuilt. The corpus adds nothing that answers the second half of the question; another source may.",
			},
		},
		answer:      "The Tarn Point lighthouse was designed by the harbour engineer Maren Osk, who drew it in 1884 {Maren Osk}. Its keeper's cottage, wrecked by the storm of November 1961 {Tarn Point}, was rebuilt in 1963 {Tarn Point cottage rebuilt after the 1961 storm — Velloran Gazette (stand-in page)}.",
		explanation: "The corpus names the designer and the storm; the web stand-in's page gives the year the cottage was rebuilt.",
		followUps:   [][2]string{{"where did she train?", "Where did Maren Osk train as an engineer?"}},
	},
	{
		question: "When was the Velloran harbour board founded, and what did it commission?",
		match:    []string{"harbour board", "founded"},
		steps: []scriptStep{{
			thought:  "I need the harbour board's history: its founding and its commissions.",
			query:    "Velloran harbour board founded commissioned",
			need:     "founded in 1869",
			judgeYes: "The new documents say the harbour board was founded in 1869 and list what it commissioned: everything the question asks.",
			judgeNo:  "The new documents do not say when the harbour board was founded.",
		}},
		answer:      "The Velloran harbour board was founded in 1869 by the island's fishing families and two mainland merchants {Velloran Harbour}. It commissioned the stone quays, the north breakwater and the Tarn Point lighthouse, and it still owns all three {Velloran Harbour}.",
		explanation: "The corpus's page on the harbour states both facts.",
	},
	{
		question: "Where did Maren Osk train as an engineer?",
		match:    []string{"maren osk", "train"},
		steps: []scriptStep{{
			thought:  "I need Maren Osk's training.",
			query:    "Maren Osk trained school",
			need:     "school of navigation works",
			judgeYes: "The new documents say where Maren Osk trained.",
			judgeNo:  "The new documents do not say where Maren Osk trained.",
		}},
		answer:      "Maren Osk trained at the school of navigation works in Copenhagen, and came home to Velloran in 1878 {Maren Osk}.",
		explanation: "Her page in the corpus says so.",
	},
}

// sampleFor finds the sample a question is, nil for another question.
func sampleFor(question string) *sample {
	q := strings.ToLower(question)
	for i := range samples {
		ok := true
		for _, w := range samples[i].match {
			ok = ok && strings.Contains(q, w)
		}
		if ok {
			return &samples[i]
		}
	}
	return nil
}
