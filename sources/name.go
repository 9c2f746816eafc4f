package sources

import "strings"

// Name names a source: its kind and its id (a corpus's name, an MCP
// server's declared name, a web engine's name). It is printed as
// "<scheme>:<id>" — "local:wiki", "mcp:memory", "web:duckduckgo" — in
// events, documents and exports (CONTRACT.md), and this file is the one
// place that writes or reads that form: everything else builds a Name and
// calls String, or calls ParseName (TestDesignSourceNamesOnlyInSources).
type Name struct {
	Kind Kind
	ID   string
}

// CorpusName names a corpus, local or remote (both print as "local:ID").
func CorpusName(id string) Name { return Name{Kind: KindLocal, ID: id} }

// WebName names a web engine ("web:duckduckgo").
func WebName(engine string) Name { return Name{Kind: KindWeb, ID: engine} }

// MCPName names a declared MCP server ("mcp:memory").
func MCPName(server string) Name { return Name{Kind: KindMCP, ID: server} }

// String is the name as events and documents carry it.
func (n Name) String() string { return n.Kind.Spec().Scheme + ":" + n.ID }

// ParseName reads a source name. Its kind is the first row of the kinds
// table with the name's scheme: a corpus reads as KindLocal (a remote index
// is named like a local corpus), an MCP server as KindMCP. So a name read
// back says how to show a source, never whether it leaves the machine: ask
// the open source's Kind for that. ok is false for a string that names no
// source ("mix", "").
func ParseName(s string) (n Name, ok bool) {
	scheme, id, found := strings.Cut(s, ":")
	if !found {
		return Name{ID: s}, false
	}
	for _, k := range kinds {
		if k.Scheme == scheme {
			return Name{Kind: k.Kind, ID: id}, true
		}
	}
	return Name{ID: s}, false
}

// Badge is the name as a person reads it: "LOCAL wiki", "MCP memory",
// "WEB duckduckgo". A string that names no source is shown upper-cased
// ("MIX").
func (n Name) Badge() string { return n.Kind.Spec().Badge + " " + n.ID }

// Role is the colour role of the name's kind.
func (n Name) Role() Role { return n.Kind.Spec().Role }

// SourceBadge is ParseName(source).Badge(), with its colour role; a string
// that names no source is upper-cased, in the neutral role.
func SourceBadge(source string) (string, Role) {
	n, ok := ParseName(source)
	if !ok {
		return strings.ToUpper(source), RoleNeutral
	}
	return n.Badge(), n.Role()
}

// SourceKind is the kind ParseName reads from a source name, with ok false
// for a string that names no source.
func SourceKind(source string) (Kind, bool) {
	n, ok := ParseName(source)
	return n.Kind, ok
}

// IsWeb reports whether source names a web engine.
func IsWeb(source string) bool {
	n, ok := ParseName(source)
	return ok && n.Kind == KindWeb
}

// IsCorpus reports whether source names a corpus (local or remote).
func IsCorpus(source string) bool {
	n, ok := ParseName(source)
	return ok && n.Kind.IsCorpus()
}

// IsNamed reports whether source is the source name names: a full source
// name ("mcp:memory", "local:notes") or a corpus's bare name ("notes").
func IsNamed(source, name string) bool {
	if n, ok := ParseName(name); ok {
		return n.String() == source
	}
	return IsCorpusNamed(source, name)
}

// IsCorpusNamed reports whether source names the corpus called corpus.
func IsCorpusNamed(source, corpus string) bool {
	n, ok := ParseName(source)
	return ok && n.Kind.IsCorpus() && n.ID == corpus
}
