package llm

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"sort"
	"sync"
)

// The table of LLM backends: one row per backend, read by the backends'
// own errors, by app (which builds the client), config (which accepts the
// names and defaults the address) and the workspace (which words advice).
// Nothing outside package llm compares backend names; a new backend is a
// new package under llm/ that registers its constructor, plus one row here.

// DefaultBackend is the backend used when none is chosen.
const DefaultBackend = "ollama"

// Client is what a backend's constructor returns: a generation, a quick
// health check, the identity of the served model for a session's manifest.
type Client interface {
	Generate(ctx context.Context, req Request, onToken TokenFunc) (Response, error)
	Check(ctx context.Context) error
	Digest(ctx context.Context) (string, error)
	Model() string
}

// Constructor builds a client for the server at url and a model (may be
// "" where the server names its model). It does not contact the server.
type Constructor func(url, model string, opts ...Option) (Client, error)

// Capabilities are what a backend's server does that the others do not.
type Capabilities struct {
	// RequestContext: the context window is sent with each request
	// (Ollama's num_ctx); else the server's own (-c, max_model_len) counts.
	RequestContext bool
	// Slots: requests can be pinned to a server slot, so the judge keeps
	// its own prompt cache (llama.cpp id_slot).
	Slots bool
	// Structured is how the judge's JSON is asked for.
	Structured string
}

// Backend is one row of the table.
type Backend struct {
	Name  string // the --llm value
	Title string // the server, as a sentence names it: "Ollama", "a llama.cpp server"
	Kind  string // what it looks like, for "it looks like …"
	// DefaultURL is the address used when none is given; DefaultPort the
	// port a bare host gets.
	DefaultURL, DefaultPort string
	// URLEnv names a variable that gives the address when neither
	// --llm-url nor llm_url does ("" for none).
	URLEnv string
	// KeyVars are the variables an API key is read from, in order (see
	// AuthFromEnv); none when the server takes no key.
	KeyVars []string
	// NamesItsModel: the server says which model it serves, so --model may
	// be left out and the name is read from the server.
	NamesItsModel bool
	Caps          Capabilities
	// Start says how to start a server of this backend listening at host
	// and port (local: host is this machine).
	Start func(host, port string, local bool) string
	// URLHint says what --llm-url must look like, when it is particular.
	URLHint string
	// ContextHint says how to give a prompt more room.
	ContextHint string
	// MissingModel words a missing model (e.Model, e.Served).
	MissingModel func(e *ModelNotFoundError) string
	// AdviceMissingModel and AdviceUnreachable say, in the workspace, what
	// to do (model: the model asked for).
	AdviceMissingModel func(model string) string
	AdviceUnreachable  func(model string) string
	// EmbedHint says what to run when the server cannot embed (see
	// CannotEmbedError.Reason).
	EmbedHint func(e *CannotEmbedError) string
	// New builds a client; set by the backend's package (Register).
	New Constructor
}

var backends = []Backend{
	{
		Name: "ollama", Title: "Ollama", Kind: "Ollama",
		DefaultURL: "http://127.0.0.1:11434", DefaultPort: "11434", URLEnv: "OLLAMA_HOST",
		Caps: Capabilities{RequestContext: true, Structured: `format (a JSON schema, then "json")`},
		Start: func(host, port string, local bool) string {
			if local && port == "11434" {
				return "start it with `ollama serve`"
			}
			return fmt.Sprintf("start it with `OLLAMA_HOST=%s ollama serve`", net.JoinHostPort(host, port))
		},
		ContextHint: "raise --num-ctx (Ollama runs each request with the num_ctx prefrag sends) or lower -k and --max-steps",
		MissingModel: func(e *ModelNotFoundError) string {
			switch {
			case len(e.Served) > 0:
				return fmt.Sprintf("model %s not found — the Ollama server has %s: pass --model with one of them, or run `ollama pull %s`",
					e.Model, ServedList(e.Served), e.Model)
			case e.Listed:
				return fmt.Sprintf("model %s not found — the Ollama server has no model yet: run `ollama pull %s`", e.Model, e.Model)
			}
			return fmt.Sprintf("model %s not found — run `ollama pull %s`", e.Model, e.Model)
		},
		AdviceMissingModel: func(model string) string {
			return fmt.Sprintf("Pull it with `ollama pull %s`, or choose another model with --model.", model)
		},
		AdviceUnreachable: func(model string) string {
			return fmt.Sprintf("Install Ollama from https://ollama.com/download, start it with `ollama serve`, then `ollama pull %s`. Sessions and corpora work without it.", model)
		},
		EmbedHint: func(e *CannotEmbedError) string {
			return "it is not an embedding model: run `ollama pull nomic-embed-text` and pass --embed-model nomic-embed-text (or another embedding model)"
		},
	},
	{
		Name: "llamacpp", Title: "a llama.cpp server", Kind: "llama.cpp's llama-server",
		DefaultURL: "http://127.0.0.1:8080", DefaultPort: "8080",
		KeyVars:       []string{"PREFRAG_LLAMACPP_API_KEY", "LLAMA_API_KEY"},
		NamesItsModel: true,
		Caps:          Capabilities{Slots: true, Structured: `json_schema (then {"type": "object"}); response_format on /v1/chat/completions`},
		Start: func(host, port string, local bool) string {
			return fmt.Sprintf("start it with `llama-server -m MODEL.gguf%s --port %s -np 2`", hostFlag(host, local), port)
		},
		ContextHint: "restart llama-server with a larger -c or fewer slots (-np; each slot gets -c divided by -np), or lower -k and --max-steps",
		MissingModel: func(e *ModelNotFoundError) string {
			if len(e.Served) > 0 {
				return fmt.Sprintf("model %s not found — the llama.cpp server serves %s: pass --model %s (or no --model), or restart it with -m pointing to %s",
					e.Model, ServedList(e.Served), e.Served[0], e.Model)
			}
			return fmt.Sprintf("model %s not found — the llama.cpp server serves a different model; restart it with -m pointing to %s", e.Model, e.Model)
		},
		AdviceMissingModel: func(string) string {
			return "Start llama-server with the model file (-m MODEL.gguf), or pass --model."
		},
		AdviceUnreachable: func(string) string {
			return "Start it with `llama-server -m MODEL.gguf --port 8080 -np 2`, or pass --llm-url."
		},
		EmbedHint: func(e *CannotEmbedError) string {
			const start = "start a llama-server for embeddings with `llama-server -m EMBEDDING-MODEL.gguf --embeddings --pooling mean -b 4096 -ub 4096 --port 8081` and pass --embed-url http://127.0.0.1:8081"
			switch e.Reason {
			case "pooling":
				return "its model has no pooling (a chat model, or --pooling none): " + start
			case "batch":
				return "a passage is longer than the server's physical batch: restart llama-server with larger -b and -ub (e.g. -b 4096 -ub 4096)"
			}
			return "it was started without --embeddings: " + start
		},
	},
	{
		Name: "openai", Title: "an OpenAI-compatible server", Kind: "an OpenAI-compatible server (vLLM, SGLang, …)",
		DefaultURL: "http://127.0.0.1:8000/v1", DefaultPort: "8000",
		KeyVars:       []string{"PREFRAG_OPENAI_API_KEY", "OPENAI_API_KEY"},
		NamesItsModel: true,
		Caps:          Capabilities{Structured: "response_format json_schema (then json_object, then none)"},
		Start: func(host, port string, local bool) string {
			return fmt.Sprintf("start the OpenAI-compatible server (e.g. `vllm serve MODEL%s --port %s`)", hostFlag(host, local), port)
		},
		URLHint:     "check --llm-url: it is the API root, usually ending in /v1 (e.g. http://127.0.0.1:8000/v1)",
		ContextHint: "restart the server with a larger context (vLLM: --max-model-len; SGLang: --context-length) or lower -k and --max-steps",
		MissingModel: func(e *ModelNotFoundError) string {
			if e.Model == "" && e.Listed && len(e.Served) == 0 {
				return "no model given and the OpenAI-compatible server lists no model (its GET /v1/models is empty) — load a model into the server, or pass --model with the name it serves"
			}
			served := "it did not say which models it serves"
			if len(e.Served) > 0 {
				served = "it serves " + ServedList(e.Served)
			}
			if e.Model == "" {
				return "no model given and the OpenAI-compatible server serves several — " + served + "; pass --model with one of them"
			}
			return fmt.Sprintf("model %s not found — the OpenAI-compatible server does not serve it; %s: pass --model with one of them", e.Model, served)
		},
		AdviceMissingModel: func(string) string {
			return "Pass --model with a model the server serves (its GET /v1/models lists them)."
		},
		AdviceUnreachable: func(string) string {
			return "Start the OpenAI-compatible server (e.g. `vllm serve MODEL --port 8000`), or pass --llm-url with its API root (…/v1)."
		},
		EmbedHint: func(e *CannotEmbedError) string {
			return "serve an embedding model (e.g. `vllm serve BAAI/bge-small-en-v1.5 --task embed --port 8001`) and pass --embed-model with its name and --embed-url with its API root"
		},
	},
}

func hostFlag(host string, local bool) string {
	if local {
		return ""
	}
	return " --host " + host
}

var registry sync.Mutex

// Register sets the constructor of a backend of the table; each backend's
// package calls it from init. It panics for a name not in the table.
func Register(name string, ctor Constructor) {
	registry.Lock()
	defer registry.Unlock()
	for i := range backends {
		if backends[i].Name == name {
			backends[i].New = ctor
			return
		}
	}
	panic("llm: Register of unknown backend " + name)
}

// LookupBackend returns the row of a backend name.
func LookupBackend(name string) (Backend, bool) {
	registry.Lock()
	defer registry.Unlock()
	for _, b := range backends {
		if b.Name == name {
			return b, true
		}
	}
	return Backend{}, false
}

// BackendOf is the row of name, or the default backend's row for a name
// not in the table (validation refuses those before any use).
func BackendOf(name string) Backend {
	if b, ok := LookupBackend(name); ok {
		return b
	}
	b, _ := LookupBackend(DefaultBackend)
	return b
}

// BackendNames lists the names in the table's order.
func BackendNames() []string {
	registry.Lock()
	defer registry.Unlock()
	out := make([]string, 0, len(backends))
	for _, b := range backends {
		out = append(out, b.Name)
	}
	return out
}

// NewClient builds a client of backend name with its API key read from
// the backend's variables (opts may override it).
func NewClient(name, url, model string, opts ...Option) (Client, error) {
	b, ok := LookupBackend(name)
	if !ok {
		names := BackendNames()
		sort.Strings(names)
		return nil, fmt.Errorf("unknown LLM backend %q (one of %v)", name, names)
	}
	if b.New == nil {
		return nil, fmt.Errorf("LLM backend %s is not linked into this program", name)
	}
	if len(b.KeyVars) > 0 {
		opts = append([]Option{WithAuth(AuthFromEnv(nil, b.KeyVars...))}, opts...)
	}
	return b.New(url, model, opts...)
}

// StartHint says how to start a server of backend listening where addr
// (a base URL) points: llama-server's --host/--port, or Ollama's
// OLLAMA_HOST when the address is not Ollama's default.
func StartHint(backend, addr string) string {
	b := BackendOf(backend)
	host, port := "127.0.0.1", ""
	if u, err := url.Parse(addr); err == nil && u.Host != "" {
		host, port = u.Hostname(), u.Port()
	}
	if port == "" {
		port = b.DefaultPort
	}
	local := host == "127.0.0.1" || host == "localhost" || host == "::1"
	return b.Start(host, port, local)
}
