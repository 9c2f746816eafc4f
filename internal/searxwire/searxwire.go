// Package searxwire is the shape of a SearXNG instance's JSON answer
// (GET /search?format=json) for the servers that answer as one: eval's
// stand-in and the fake search engine of the tests. The client in
// sources/web reads that format on its own, leniently, and does not use
// these types.
package searxwire

// Result is one result of an answer.
type Result struct {
	URL       string   `json:"url"`
	Title     string   `json:"title"`
	Content   string   `json:"content"`
	Engine    string   `json:"engine"`
	Engines   []string `json:"engines"`
	Positions []int    `json:"positions"`
	Score     float64  `json:"score"`
	Category  string   `json:"category"`
}

// Answer is a whole answer.
type Answer struct {
	Query           string   `json:"query"`
	NumberOfResults int      `json:"number_of_results"`
	Results         []Result `json:"results"`
	Answers         []string `json:"answers"`
	Corrections     []string `json:"corrections"`
	Infoboxes       []string `json:"infoboxes"`
	Suggestions     []string `json:"suggestions"`
	// UnresponsiveEngines lists [engine, reason] pairs.
	UnresponsiveEngines [][2]string `json:"unresponsive_engines"`
}

// NewAnswer is the answer to query with results and the failing engines,
// every list empty rather than null, as SearXNG sends them.
func NewAnswer(query string, results []Result, unresponsive [][2]string) Answer {
	if results == nil {
		results = []Result{}
	}
	if unresponsive == nil {
		unresponsive = [][2]string{}
	}
	return Answer{Query: query, NumberOfResults: len(results), Results: results, Answers: []string{},
		Corrections: []string{}, Infoboxes: []string{}, Suggestions: []string{}, UnresponsiveEngines: unresponsive}
}
