// Package remote is what every remote corpus shares: the registration
// stored under the corpora directory (<corpora>/<name>/remote.json), the
// credentials read from the environment when the corpus is opened, a health
// report, and a guard (per-request timeout and circuit breaker) that wraps
// any remote corpus source. Concrete clients live in sources/elastic and
// sources/manticore; app opens them from one table.
//
// Secrets are never stored: a Spec holds only the names of environment
// variables, and their values live in Credentials for as long as a source
// is open.
package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prefrag/prefrag/internal/lazyre"
)

// SpecFile is the registration file inside a remote corpus's directory. A
// corpus directory holding it (and no index) is a remote corpus.
const SpecFile = "remote.json"

// Kinds of remote corpora.
const (
	KindElasticsearch = "elasticsearch"
	KindManticore     = "manticore"
)

// DefaultTimeout bounds each request to a remote corpus.
const DefaultTimeout = 10 * time.Second

// ErrInvalidSpec is matched by errors about a registration that is refused
// or cannot be read.
var ErrInvalidSpec = errors.New("invalid remote corpus")

// ErrNotRemote is matched when a corpus has no remote registration.
var ErrNotRemote = errors.New("not a remote corpus")

// ErrCredentials is matched when an environment variable named for a
// credential is not set.
var ErrCredentials = errors.New("credentials missing")

// SpecError says why a registration was refused. It never holds a secret:
// a URL with credentials in it is described, not quoted.
type SpecError struct {
	Corpus string
	Reason string
}

func (e *SpecError) Error() string {
	if e.Corpus == "" {
		return "remote corpus refused: " + e.Reason
	}
	return fmt.Sprintf("remote corpus %q: %s", e.Corpus, e.Reason)
}

func (e *SpecError) Is(target error) bool { return target == ErrInvalidSpec }

// Spec is a remote corpus's registration, as stored in remote.json.
type Spec struct {
	Kind string `json:"kind"`
	// URL is the cluster's address without credentials: an http(s) URL
	// for Elasticsearch/OpenSearch, host:port (or mysql://host:port) for
	// Manticore's SphinxQL listener.
	URL   string `json:"url"`
	Index string `json:"index"`
	// Field names in the remote documents; empty means the default
	// (title, text, url; the engine's own document id).
	TitleField string `json:"title_field,omitempty"`
	TextField  string `json:"text_field,omitempty"`
	URLField   string `json:"url_field,omitempty"`
	IDField    string `json:"id_field,omitempty"`
	// VectorField is the index's dense_vector (Elasticsearch) or
	// knn_vector (OpenSearch) field, searched by meaning; EmbedModel the
	// embedding model that made its vectors (queries are embedded with it
	// unless --embed-model says otherwise).
	VectorField string `json:"vector_field,omitempty"`
	EmbedModel  string `json:"embed_model,omitempty"`
	// Names (never values) of the environment variables holding the
	// credentials, read when the corpus is opened.
	APIKeyEnv   string `json:"api_key_env,omitempty"`
	UserEnv     string `json:"user_env,omitempty"`
	PasswordEnv string `json:"password_env,omitempty"`
	// Timeout per request, as a Go duration ("10s"); empty is
	// DefaultTimeout.
	Timeout string    `json:"timeout,omitempty"`
	Added   time.Time `json:"added"`
}

// Field defaults.
const (
	DefaultTitleField = "title"
	DefaultTextField  = "text"
	DefaultURLField   = "url"
)

// Fields returns the title, text and URL field names with defaults applied.
func (s Spec) Fields() (title, text, urlField string) {
	title, text, urlField = s.TitleField, s.TextField, s.URLField
	if title == "" {
		title = DefaultTitleField
	}
	if text == "" {
		text = DefaultTextField
	}
	if urlField == "" {
		urlField = DefaultURLField
	}
	return title, text, urlField
}

// RequestTimeout is the per-request timeout.
func (s Spec) RequestTimeout() time.Duration {
	if d, err := time.ParseDuration(s.Timeout); err == nil && d > 0 {
		return d
	}
	return DefaultTimeout
}

var envNameRE = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
var fieldRE = lazyre.New(`^[A-Za-z0-9_@][A-Za-z0-9_.@-]*$`)
var indexRE = lazyre.New(`^[A-Za-z0-9_.*,-][A-Za-z0-9_.*,:+-]*$`)

// Normalize checks a registration and returns it cleaned (URL without a
// trailing slash, default timeout spelled out). It refuses a URL that
// carries credentials, without repeating them.
func (s Spec) Normalize(corpus string) (Spec, error) {
	bad := func(format string, args ...any) (Spec, error) {
		return Spec{}, &SpecError{Corpus: corpus, Reason: fmt.Sprintf(format, args...)}
	}
	switch s.Kind {
	case KindElasticsearch, KindManticore:
	default:
		return bad("unknown kind %q (elasticsearch or manticore)", s.Kind)
	}
	u, err := s.cleanURL()
	if err != nil {
		return Spec{}, &SpecError{Corpus: corpus, Reason: err.Error()}
	}
	s.URL = u
	if s.Index == "" || len(s.Index) > 255 || !indexRE().MatchString(s.Index) {
		return bad("--index needs the name of an index (letters, digits, '_', '-', '.', ',' or '*')")
	}
	for _, part := range strings.Split(s.Index, ",") {
		if part == "." || part == ".." {
			return bad("--index %q is not an index name: %q would be read as a path step of the server's address (…/%s/_search), not an index", s.Index, part, part)
		}
	}
	if s.VectorField != "" && s.Kind != KindElasticsearch {
		return bad("--vector-field is for Elasticsearch and OpenSearch indexes")
	}
	for flag, f := range map[string]string{"--title-field": s.TitleField, "--text-field": s.TextField, "--url-field": s.URLField, "--id-field": s.IDField, "--vector-field": s.VectorField} {
		if f != "" && (len(f) > 200 || !fieldRE().MatchString(f)) {
			return bad("%s %q is not a field name", flag, f)
		}
	}
	for flag, v := range map[string]string{"--api-key-env": s.APIKeyEnv, "--user-env": s.UserEnv, "--password-env": s.PasswordEnv} {
		if v != "" && !envNameRE().MatchString(v) {
			return bad("%s takes the NAME of an environment variable (letters, digits and '_'), not its value", flag)
		}
	}
	if (s.UserEnv == "") != (s.PasswordEnv == "") {
		return bad("basic authentication needs both --user-env and --password-env")
	}
	if s.APIKeyEnv != "" && s.UserEnv != "" {
		return bad("use either --api-key-env or --user-env/--password-env, not both")
	}
	if s.APIKeyEnv != "" && s.Kind == KindManticore {
		return bad("Manticore has no API keys: use --user-env and --password-env")
	}
	if s.Timeout != "" {
		d, err := time.ParseDuration(s.Timeout)
		if err != nil || d <= 0 || d > 10*time.Minute {
			return bad("--timeout %q is not a duration between 1ms and 10m (e.g. 10s)", s.Timeout)
		}
		s.Timeout = d.String()
	}
	return s, nil
}

// cleanURL validates the address for the kind and returns it without a
// trailing slash. Its errors never quote the URL (it may hold a password).
func (s Spec) cleanURL() (string, error) {
	raw := strings.TrimSpace(s.URL)
	if raw == "" {
		return "", errors.New("the cluster's address is empty")
	}
	if s.Kind == KindManticore && !strings.Contains(raw, "://") {
		if strings.Contains(raw, "@") {
			return "", errCredentialsInURL(s.Kind)
		}
		if _, _, err := net.SplitHostPort(raw); err != nil {
			return "", errors.New("--manticore takes HOST:PORT of the SphinxQL listener (e.g. 127.0.0.1:9306) or mysql://HOST:PORT")
		}
		return raw, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		if strings.Contains(raw, "@") {
			return "", errCredentialsInURL(s.Kind)
		}
		return "", errors.New("the cluster's address is not a URL")
	}
	if u.User != nil {
		return "", errCredentialsInURL(s.Kind)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("the cluster's address must not carry a query or fragment (credentials come from the environment: --api-key-env or --user-env/--password-env)")
	}
	if u.Host == "" {
		return "", errors.New("the cluster's address has no host")
	}
	switch s.Kind {
	case KindElasticsearch:
		if u.Scheme != "http" && u.Scheme != "https" {
			return "", errors.New("--elasticsearch takes an http:// or https:// URL")
		}
	case KindManticore:
		if u.Scheme != "mysql" && u.Scheme != "manticore" && u.Scheme != "sphinxql" {
			return "", errors.New("--manticore takes HOST:PORT of the SphinxQL listener or mysql://HOST:PORT")
		}
		if u.Port() == "" {
			return "", errors.New("--manticore needs a port (the SphinxQL listener, usually 9306)")
		}
	}
	return strings.TrimRight(u.String(), "/"), nil
}

func errCredentialsInURL(kind string) error {
	how := "--api-key-env VAR or --user-env VAR --password-env VAR"
	if kind == KindManticore {
		how = "--user-env VAR --password-env VAR"
	}
	return fmt.Errorf("the address carries a user name or password, which would be stored in clear: remove them from it and pass %s (only the variables' names are stored)", how)
}

// Addr is the host:port of a Manticore listener.
func (s Spec) Addr() string {
	if !strings.Contains(s.URL, "://") {
		return s.URL
	}
	if u, err := url.Parse(s.URL); err == nil {
		return u.Host
	}
	return s.URL
}

// Credentials are the secret values named by a Spec, read from the
// environment. They are never written anywhere.
type Credentials struct {
	APIKey, User, Password string
}

// Secrets lists the non-empty values, for redaction.
func (c Credentials) Secrets() []string {
	var out []string
	for _, s := range []string{c.APIKey, c.User, c.Password} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// CredentialsError names the unset variable (never a value).
type CredentialsError struct {
	Corpus, Var string
}

func (e *CredentialsError) Error() string {
	return fmt.Sprintf("remote corpus %q reads its credentials from the environment variable %s, which is not set: export it and try again", e.Corpus, e.Var)
}

func (e *CredentialsError) Is(target error) bool { return target == ErrCredentials }

// Credentials reads the variables the spec names. getenv is os.Getenv when
// nil.
func (s Spec) Credentials(corpus string, getenv func(string) string) (Credentials, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var c Credentials
	read := func(name string, into *string) error {
		if name == "" {
			return nil
		}
		*into = getenv(name)
		if *into == "" {
			return &CredentialsError{Corpus: corpus, Var: name}
		}
		return nil
	}
	for _, f := range []struct {
		name string
		into *string
	}{{s.APIKeyEnv, &c.APIKey}, {s.UserEnv, &c.User}, {s.PasswordEnv, &c.Password}} {
		if err := read(f.name, f.into); err != nil {
			return Credentials{}, err
		}
	}
	return c, nil
}

// AuthHint says where a source's credentials come from, for error
// messages: "$ES_API_KEY", "$ES_USER/$ES_PASSWORD", or "" without any.
func (s Spec) AuthHint() string {
	switch {
	case s.APIKeyEnv != "":
		return "$" + s.APIKeyEnv
	case s.UserEnv != "":
		return "$" + s.UserEnv + "/$" + s.PasswordEnv
	}
	return ""
}

func specPath(corporaDir, name string) string {
	return filepath.Join(corporaDir, name, SpecFile)
}

// IsRemote reports whether corpus name under corporaDir is a remote
// registration (its remote.json exists, readable or not).
func IsRemote(corporaDir, name string) bool {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return false
	}
	_, err := os.Lstat(specPath(corporaDir, name))
	return err == nil
}

// Load reads corpus name's registration. A missing one is ErrNotRemote; an
// unreadable one is ErrInvalidSpec.
func Load(corporaDir, name string) (Spec, error) {
	raw, err := os.ReadFile(specPath(corporaDir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return Spec{}, fmt.Errorf("corpus %q: %w", name, ErrNotRemote)
	}
	if err != nil {
		return Spec{}, &SpecError{Corpus: name, Reason: fmt.Sprintf("its registration cannot be read (%v); remove it with `prefrag corpora rm %s` and add it again", errors.Unwrap(err), name)}
	}
	var s Spec
	if err := json.Unmarshal(raw, &s); err != nil {
		return Spec{}, &SpecError{Corpus: name, Reason: fmt.Sprintf("its registration %s is damaged (%v); remove it with `prefrag corpora rm %s` and add it again", SpecFile, err, name)}
	}
	n, err := s.Normalize(name)
	if err != nil {
		return Spec{}, &SpecError{Corpus: name, Reason: fmt.Sprintf("its registration is not valid (%s); remove it with `prefrag corpora rm %s` and add it again", err.(*SpecError).Reason, name)}
	}
	n.Added = s.Added
	return n, nil
}

// ErrExists is matched when a corpus of that name already exists.
var ErrExists = errors.New("corpus exists")

// Save registers corpus name. It refuses a name already used by a local
// or remote corpus (the caller validated the name).
func Save(corporaDir, name string, s Spec) error {
	n, err := s.Normalize(name)
	if err != nil {
		return err
	}
	if n.Added.IsZero() {
		n.Added = time.Now().UTC().Truncate(time.Second)
	}
	dir := filepath.Join(corporaDir, name)
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("%w: a corpus named %q already exists; remove it with `prefrag corpora rm %s` first, or pick another name", ErrExists, name, name)
	}
	if err := os.MkdirAll(corporaDir, 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w: a corpus named %q already exists", ErrExists, name)
		}
		return err
	}
	b, _ := json.MarshalIndent(n, "", "  ")
	tmp := filepath.Join(dir, SpecFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err == nil {
		err = os.Rename(tmp, specPath(corporaDir, name))
		if err == nil {
			return nil
		}
	}
	os.RemoveAll(dir)
	return fmt.Errorf("registering corpus %q: could not write %s", name, SpecFile)
}

// Identity is what a session's manifest records about a remote corpus: no
// credentials, not even the variables' names.
type Identity struct {
	Kind        string `json:"kind"`
	URL         string `json:"url"`
	Index       string `json:"index"`
	Cluster     string `json:"cluster,omitempty"`
	ClusterUUID string `json:"cluster_uuid,omitempty"`
	Version     string `json:"version,omitempty"`
	// Distribution is "opensearch" for OpenSearch, "" for Elasticsearch.
	Distribution string `json:"distribution,omitempty"`
	Documents    int64  `json:"documents,omitempty"`
}
