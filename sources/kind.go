package sources

// Kind is what a source is. It decides, through one row of the kinds
// table below, how the source is shown (badge, colour role), whether a
// query to it leaves the machine, whether it obeys the web policy and the
// user's consent, where it stands in the default preference order and how
// it is opened. Every rule that depends on a source's kind reads this
// table: nothing compares source names or their prefixes (name.go is the
// one place that reads and writes them).
type Kind int

const (
	// KindLocal is a Bleve corpus on this machine.
	KindLocal Kind = iota
	// KindWeb is a public web search engine.
	KindWeb
	// KindRemote is the user's own Elasticsearch, OpenSearch or Manticore
	// index, reached over the network.
	KindRemote
	// KindMCP is an MCP server started on this machine (stdio), or an
	// http/sse one the user declared local (a loopback server).
	KindMCP
	// KindMCPRemote is an MCP server reached over http or sse.
	KindMCPRemote
)

// Role is the colour role a source is shown in. The UI maps a role to a
// colour (ui/styles); this package knows no colours. Its String is also the
// CSS class the HTML export gives a source.
type Role int

const (
	RoleNeutral Role = iota
	RoleLocal        // the analyst's own corpora, local or remote
	RoleMCP          // MCP servers
	RoleWeb          // the public web
)

func (r Role) String() string {
	switch r {
	case RoleLocal:
		return "local"
	case RoleMCP:
		return "mcp"
	case RoleWeb:
		return "web"
	}
	return "neutral"
}

// KindSpec is one row of the kinds table.
type KindSpec struct {
	Kind Kind
	// Label is the kind as `prefrag sources` prints it (text and --json):
	// "local", "remote", "mcp", "web".
	Label string
	// Scheme is the prefix of the source's name ("local" in "local:wiki").
	// A remote index is named like a local corpus (the contract's
	// "local:NAME" for a corpus, local or remote), so a name read back
	// from an event says the family, not always the exact kind.
	Scheme string
	// Badge is the word a source is shown with: "LOCAL wiki", "MCP memory".
	Badge string
	Role  Role
	// Leaves says a query to the source leaves the machine: it is subject
	// to the never-leave content rule.
	Leaves bool
	// WebPolicy says the source obeys the web policy (auto, ask, never)
	// and the user's consent like the web does. A remote index is the
	// user's own corpus: its queries leave the machine but need no web
	// consent.
	WebPolicy bool
	// Rank is the kind's place in the default preference order: corpora
	// (0), then MCP servers (1), then the web (2).
	Rank int
	// Opens says how a source of this kind is opened.
	Opens string
	// Queries names the queries to sources of this kind, as a consent
	// question words an answer for the whole run ("all of this run's web
	// queries"): the user's consent is given or refused per kind.
	Queries string
}

// kinds is the table. Its order is Kind's.
var kinds = [...]KindSpec{
	KindLocal: {Kind: KindLocal, Label: "local", Scheme: "local", Badge: "LOCAL", Role: RoleLocal,
		Rank: 0, Opens: "a Bleve index under $PREFRAG_HOME/corpora, opened read-only", Queries: "searches of local corpora"},
	KindWeb: {Kind: KindWeb, Label: "web", Scheme: "web", Badge: "WEB", Role: RoleWeb,
		Leaves: true, WebPolicy: true, Rank: 2, Opens: "HTTP requests to a search engine (--web-engine), through the web cache", Queries: "web queries"},
	KindRemote: {Kind: KindRemote, Label: "remote", Scheme: "local", Badge: "LOCAL", Role: RoleLocal,
		Leaves: true, Rank: 0, Opens: "HTTP or MySQL-protocol requests to the registered index, behind a timeout and a circuit breaker",
		Queries: "queries to remote indexes"},
	KindMCP: {Kind: KindMCP, Label: "mcp", Scheme: "mcp", Badge: "MCP", Role: RoleMCP,
		Rank: 1, Opens: "the declared command started as a child process (stdio), or a loopback http server declared local",
		Queries: "queries to local MCP servers"},
	KindMCPRemote: {Kind: KindMCPRemote, Label: "mcp", Scheme: "mcp", Badge: "MCP", Role: RoleMCP,
		Leaves: true, WebPolicy: true, Rank: 1, Opens: "a streamable-HTTP or SSE connection to the declared URL",
		Queries: "queries to MCP servers over the network"},
}

// Spec is the kind's row; an unknown kind gets a neutral row.
func (k Kind) Spec() KindSpec {
	if k < 0 || int(k) >= len(kinds) {
		return KindSpec{Kind: k, Label: "unknown", Role: RoleNeutral, Leaves: true, WebPolicy: true, Rank: 3,
			Queries: "queries that leave the machine"}
	}
	return kinds[k]
}

// String is the kind's label ("local", "remote", "mcp", "web").
func (k Kind) String() string { return k.Spec().Label }

// Leaves reports whether a query to a source of this kind leaves the
// machine.
func (k Kind) Leaves() bool { return k.Spec().Leaves }

// FollowsWebPolicy reports whether a source of this kind obeys the web
// policy and consent.
func (k Kind) FollowsWebPolicy() bool { return k.Spec().WebPolicy }

// IsCorpus reports whether the kind is one of the analyst's corpora, local
// or remote: what --corpus names, what never-leave lists hold.
func (k Kind) IsCorpus() bool { return k.Spec().Scheme == kinds[KindLocal].Scheme }

// IsMCP reports whether the kind is an MCP server, whatever its transport.
func (k Kind) IsMCP() bool { return k.Spec().Scheme == kinds[KindMCP].Scheme }
