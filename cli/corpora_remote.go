package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
	"github.com/prefrag/prefrag/sources/remote"
	"github.com/prefrag/prefrag/ui"
)

const corporaAddUsage = "corpora add NAME (--elasticsearch URL | --manticore HOST:PORT) --index INDEX [--title-field F] [--text-field F] [--url-field F] [--id-field F] [--vector-field F --embed-model M] [--api-key-env VAR | --user-env VAR --password-env VAR] [--timeout D]"

// corporaAddArgs returns the arguments after "add" when the first
// positional argument of `corpora` is "add" (flags of add may come first).
func corporaAddArgs(args []string) ([]string, bool) {
	valueFlags := map[string]bool{"elasticsearch": true, "manticore": true, "index": true, "title-field": true,
		"text-field": true, "url-field": true, "id-field": true, "vector-field": true, "embed-model": true, "api-key-env": true, "user-env": true,
		"password-env": true, "timeout": true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil, false
		}
		if strings.HasPrefix(a, "-") {
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && valueFlags[name] {
				i++ // its value
			}
			continue
		}
		if a != "add" {
			return nil, false
		}
		return append(append([]string(nil), args[:i]...), args[i+1:]...), true
	}
	return nil, false
}

// corporaAddOptions are `prefrag corpora add`'s: the remote corpus's name
// and what is stored of it (its address, index, field names and the NAMES
// of the environment variables holding credentials).
type corporaAddOptions struct {
	Name string
	Spec remote.Spec
}

func parseCorporaAdd(e *env, args []string) (*corporaAddOptions, error) {
	fs := flag.NewFlagSet("corpora add", flag.ContinueOnError)
	es := fs.String("elasticsearch", "", "Elasticsearch or OpenSearch base URL (http(s)://HOST:PORT), without credentials")
	mc := fs.String("manticore", "", "Manticore Search SphinxQL listener HOST:PORT")
	o := &corporaAddOptions{}
	s := &o.Spec
	fs.StringVar(&s.Index, "index", "", "index (or alias) to search")
	fs.StringVar(&s.TitleField, "title-field", "", "title field (default title)")
	fs.StringVar(&s.TextField, "text-field", "", "text field (default text)")
	fs.StringVar(&s.URLField, "url-field", "", "URL field (default url)")
	fs.StringVar(&s.IDField, "id-field", "", "field used as the document id (default: the engine's own id)")
	fs.StringVar(&s.VectorField, "vector-field", "", "dense_vector (Elasticsearch 8) or knn_vector (OpenSearch) field: the index is then searched by meaning too (hybrid)")
	fs.StringVar(&s.EmbedModel, "embed-model", "", "with --vector-field: the embedding model that made the index's vectors (queries are embedded with it, on --embed-url or the LLM server)")
	fs.StringVar(&s.APIKeyEnv, "api-key-env", "", "NAME of the environment variable holding an API key (Elasticsearch/OpenSearch)")
	fs.StringVar(&s.UserEnv, "user-env", "", "NAME of the environment variable holding the user name")
	fs.StringVar(&s.PasswordEnv, "password-env", "", "NAME of the environment variable holding the password")
	timeout := fs.Duration("timeout", 0, "per-request timeout (default 10s)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, corporaAddUsage)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, usagef("usage: prefrag %s", corporaAddUsage)
	}
	o.Name = pos[0]
	if err := local.ValidateName(o.Name); err != nil {
		return nil, usagef("%v", err)
	}
	switch {
	case *es != "" && *mc != "":
		return nil, usagef("corpora add takes one of --elasticsearch and --manticore")
	case *es != "":
		s.Kind, s.URL = remote.KindElasticsearch, *es
	case *mc != "":
		s.Kind, s.URL = remote.KindManticore, *mc
	default:
		return nil, usagef("corpora add needs --elasticsearch URL or --manticore HOST:PORT: prefrag %s", corporaAddUsage)
	}
	if *timeout != 0 {
		s.Timeout = timeout.String()
	}
	if _, err := s.Normalize(o.Name); err != nil {
		return nil, usagef("%v", err)
	}
	return o, nil
}

// runCorporaAdd registers a remote corpus, pins it when it is the first,
// and says whether it can be searched now.
func runCorporaAdd(e *env, o *corporaAddOptions) error {
	dir, name := e.cfg.CorporaDir(), o.Name
	if err := remote.Save(dir, name, o.Spec); err != nil {
		if errors.Is(err, remote.ErrInvalidSpec) || errors.Is(err, remote.ErrExists) {
			return usagef("%v", err)
		}
		return err
	}
	spec, _ := remote.Load(dir, name)
	fmt.Fprintf(e.stdout, "registered remote corpus %s: %s index %s at %s (read-only; nothing is copied)\n", name, spec.Kind, spec.Index, spec.URL)
	if hint := spec.AuthHint(); hint != "" {
		fmt.Fprintf(e.stdout, "credentials are read from %s each time it is searched; their values are never stored\n", hint)
	}
	if catalog.PinIfFirst(dir, name) {
		fmt.Fprintf(e.stdout, "corpus %s is pinned (the first corpus of this home is pinned automatically): `prefrag ask` searches it first; `prefrag corpora unpin` undoes it\n", name)
	}
	a := &app.App{Cfg: e.cfg}
	h := a.RemoteHealth(e.ctx, name)
	if h.OK {
		fmt.Fprintf(e.stdout, "health: %s\n", healthLine(spec.Kind, h))
	} else {
		fmt.Fprintf(e.stderr, "prefrag: registered, but the corpus cannot be searched now: %s\n", oneLine(errors.New(h.Problem)))
	}
	return nil
}

// healthLine is one line about the state of a remote corpus of the kind.
func healthLine(kind string, h remote.Health) string {
	var b strings.Builder
	b.WriteString(h.Status)
	if h.Cluster != "" {
		fmt.Fprintf(&b, ", cluster %s", h.Cluster)
	}
	if h.Version != "" {
		dist := "Elasticsearch"
		if h.Distribution == "opensearch" {
			dist = "OpenSearch"
		}
		if h.Distribution != "" && h.Distribution != "opensearch" {
			dist = h.Distribution
		}
		if kind == remote.KindManticore {
			// The SphinxQL greeting's version says nothing of which
			// server sent it.
			dist = "Manticore/Sphinx"
		}
		fmt.Fprintf(&b, " (%s %s)", dist, h.Version)
	}
	if h.Documents >= 0 {
		fmt.Fprintf(&b, ", %d documents", h.Documents)
	}
	return textsafe.ForTerminal(b.String())
}

// remoteRow is what `corpora` shows of a remote corpus.
type remoteRow struct {
	spec   remote.Spec
	health remote.Health
}

// listTimeout caps each health check of a listing.
const listTimeout = 5 * time.Second

// remoteRows checks every remote corpus of infos at once.
func remoteRows(ctx context.Context, e *env, infos []catalog.Info) map[string]remoteRow {
	out := map[string]remoteRow{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	a := &app.App{Cfg: e.cfg}
	for _, in := range infos {
		if in.Remote == "" || in.Problem != "" {
			continue
		}
		spec, err := remote.Load(e.cfg.CorporaDir(), in.Name)
		if err != nil {
			continue
		}
		wg.Add(1)
		go func(name string, spec remote.Spec) {
			defer wg.Done()
			t := spec.RequestTimeout()
			if t > listTimeout {
				t = listTimeout
			}
			hctx, cancel := context.WithTimeout(ctx, t)
			defer cancel()
			h := a.RemoteHealth(hctx, name)
			mu.Lock()
			out[name] = remoteRow{spec: spec, health: h}
			mu.Unlock()
		}(in.Name, spec)
	}
	wg.Wait()
	return out
}

// remoteJSON adds the remote fields to a corpus's `corpora --json` object.
func remoteJSON(obj map[string]any, in catalog.Info, r remoteRow, ok bool) {
	obj["remote"] = in.Remote
	if !ok {
		return
	}
	h := r.health
	obj["url"], obj["index"] = r.spec.URL, r.spec.Index
	obj["health"], obj["healthy"] = h.Status, h.OK
	// documents_known: false says that documents and passages are not a
	// count (a distributed index would need a full scan, or the cluster did
	// not answer), so a script does not read 0 as an empty index.
	obj["documents_known"] = h.Documents >= 0
	if h.Documents >= 0 {
		obj["documents"], obj["passages"] = h.Documents, h.Documents
	}
	if h.Cluster != "" {
		obj["cluster"] = h.Cluster
	}
	if h.ClusterUUID != "" {
		obj["cluster_uuid"] = h.ClusterUUID
	}
	if h.Version != "" {
		obj["version"] = h.Version
	}
	if h.Distribution != "" {
		obj["distribution"] = h.Distribution
	}
	if !h.OK && h.Problem != "" {
		obj["problem"] = textsafe.ForTerminal(h.Problem)
	}
}

// remoteTableRow is the `corpora` table row of a remote corpus.
func remoteTableRow(in catalog.Info, r remoteRow, ok bool, pin string) string {
	docs := "?"
	state := "remote"
	if ok {
		if r.health.Documents >= 0 {
			docs = fmt.Sprint(r.health.Documents)
		}
		state = "remote: " + r.health.Status
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\n", in.Name, docs, docs, "-", state, pin)
}

// printRemoteDetails writes one line per remote corpus after the table,
// and its problem on stderr.
func printRemoteDetails(e *env, infos []catalog.Info, rows map[string]remoteRow) {
	for _, in := range infos {
		r, ok := rows[in.Name]
		if !ok {
			continue
		}
		fmt.Fprintf(e.stdout, "  %s: %s index %s at %s — %s\n", in.Name, r.spec.Kind, r.spec.Index,
			textsafe.ForTerminal(r.spec.URL), healthLine(r.spec.Kind, r.health))
		if !r.health.OK && r.health.Problem != "" {
			fmt.Fprintln(e.stderr, "prefrag:", oneLine(errors.New(r.health.Problem)))
		}
	}
}

// refuseRemoteIndex is the one sentence `index` says for a remote corpus.
func refuseRemoteIndex(dir, name string) error {
	if !catalog.IsRemote(dir, name) {
		return nil
	}
	return usagef("corpus %s is a remote corpus (read-only, its documents live on the cluster): index into its cluster with the cluster's own tools, or pick another --corpus", name)
}

// searchRemote runs `prefrag search` on a remote corpus.
func searchRemote(e *env, name, query string, k int) ([]sources.Document, error) {
	a := &app.App{Cfg: e.cfg}
	g, err := a.OpenRemote(e.ctx, name)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	docs, err := g.Search(e.ctx, query, k)
	if err != nil && errors.Is(err, sources.ErrTruncated) && len(docs) > 0 {
		fmt.Fprintln(e.stderr, "prefrag:", oneLine(err))
		return docs, nil
	}
	if errors.Is(err, sources.ErrDegraded) {
		fmt.Fprintln(e.stderr, "prefrag: note:", oneLine(err))
		return docs, nil
	}
	return docs, err
}

// removeRemote removes a remote corpus's registration.
func removeRemote(e *env, dir, name string, info *catalog.Info) error {
	if err := catalog.Delete(dir, name); err != nil {
		return err
	}
	msg := fmt.Sprintf("removed remote corpus %s: only its registration is gone; the cluster's index and data are untouched", name)
	if info.Pinned {
		msg += "; it was pinned, and no other corpus takes its place: " + noPinAdvice
	}
	fmt.Fprintln(e.stdout, msg)
	return nil
}

// tuiRemoteHealth fills the TUI corpora screen's rows of remote corpora:
// their document count, or their problem.
func tuiRemoteHealth(ctx context.Context, a *app.App, infos []catalog.Info, out []ui.CorpusInfo) {
	rows := remoteRows(ctx, &env{cfg: a.Cfg, ctx: ctx}, infos)
	for i, in := range infos {
		r, ok := rows[in.Name]
		if !ok {
			continue
		}
		if r.health.Documents >= 0 {
			out[i].Documents, out[i].Passages = r.health.Documents, r.health.Documents
		}
		if !r.health.OK {
			out[i].Problem = "remote " + r.spec.Kind + " corpus: " + r.health.Problem
		}
	}
}
