package cli

import (
	"testing"

	"github.com/prefrag/prefrag/sources/remote"
)

// The health line names the server a version came from: a Manticore or
// Sphinx version is not called Elasticsearch.
func TestHealthLineNamesTheServer(t *testing.T) {
	for _, tc := range []struct {
		name, kind string
		h          remote.Health
		want       string
	}{
		{"elasticsearch", remote.KindElasticsearch,
			remote.Health{OK: true, Status: "ok", Cluster: "kb", Version: "8.11.1", Documents: 3},
			"ok, cluster kb (Elasticsearch 8.11.1), 3 documents"},
		{"opensearch", remote.KindElasticsearch,
			remote.Health{OK: true, Status: "ok", Version: "2.11.0", Distribution: "opensearch", Documents: -1},
			"ok (OpenSearch 2.11.0)"},
		{"sphinx", remote.KindManticore,
			remote.Health{OK: true, Status: "ok", Version: "2.2.11-id64-release (95ae9a6)", Documents: -1},
			"ok (Manticore/Sphinx 2.2.11-id64-release (95ae9a6))"},
		{"manticore local index", remote.KindManticore,
			remote.Health{OK: true, Status: "ok", Version: "6.3.6 1811a9efb@24052209", Documents: 12},
			"ok (Manticore/Sphinx 6.3.6 1811a9efb@24052209), 12 documents"},
		{"no version", remote.KindManticore,
			remote.Health{Status: "unreachable", Documents: -1},
			"unreachable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := healthLine(tc.kind, tc.h); got != tc.want {
				t.Errorf("healthLine = %q, want %q", got, tc.want)
			}
		})
	}
}
