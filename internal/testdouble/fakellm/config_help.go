package fakellm

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// ScriptField documents one key of the fakellm command's JSON script.
type ScriptField struct {
	Key, Type, Help string
}

// ScriptFields documents every key of Config, in the order -h prints them.
var ScriptFields = []ScriptField{
	{"steps", "[string]", "replies to reasoning-step calls, in order (a call with none left gets a default final answer and is logged as a problem)"},
	{"judges", "[string]", `replies to selection-judge calls (structured output), in order, e.g. "{\"analysis\":\"…\",\"status\":true}"`},
	{"rules", "[rule]", "tried first, in order, for every call; a call no rule answers takes the next step or judge (keys below)"},
	{"chunk_delay_ms", "int", "pause before each streamed chunk, in milliseconds"},
	{"latency_ms", "int", "delay before the first chunk of every generation (model load, prompt evaluation)"},
	{"models", "[string]", `models the server has (default ["fake-model"]); the first is llama.cpp's alias and the OpenAI mode's default`},
	{"slots", "int", "llama.cpp parallel slots (default 2, like llama-server -np 2)"},
	{"ignore_stop", "bool", "ignore stop sequences, as some servers do"},
	{"context_length", "int", "the server's whole context (llama-server -c, default 32768); a slot gets context_length/slots"},
	{"enforce_context", "bool", "refuse prompts longer than the context (HTTP 400 exceed_context_size_error) and stop a generation that fills it"},
	{"legacy_props", "bool", "answer GET /props as older llama-server versions did (n_ctx at the top level)"},
	{"openai", "bool", "serve the OpenAI-compatible protocol (vLLM's shapes) instead of Ollama's and llama.cpp's"},
	{"refuse_json_schema", "bool", `with openai: answer HTTP 400 to response_format {"type":"json_schema"} (json_object still accepted)`},
	{"sampler_refusal", "bool", `refuse a JSON schema with properties (any endpoint) with llama-server's 400 "Failed to initialize samplers"; a plain JSON object is accepted`},
	{"as_ollama", "bool", "be Ollama only: its API and its /v1 (models listed as name:latest); llama.cpp's endpoints answer 404"},
	{"kill_after", "int", "die after streaming this many chunks of a generation, as a killed process: connections reset, nothing listens afterwards"},
	{"require_api_key", "string", "answer 401 to requests without Authorization: Bearer KEY (vllm serve / llama-server --api-key)"},
	{"truncate_like_ollama", "bool", `a prompt of at least the context, as Ollama 0.34.4: cut to num_ctx − (num_ctx − 4)/2 tokens (its first 4 and the tail; the kept count reported), on /api/chat at num_ctx, on Ollama's /v1 at 4096 (the runner reloaded at that); a native request with "truncate": false gets Ollama's HTTP 400 with its runner's exceed_context_size_error instead`},
	{"ignore_truncate", "bool", `with truncate_like_ollama: cut even when a request sends "truncate": false, as Ollama versions before that field do`},
	{"dense_scripts", "number", "with count_by_script: count CJK characters and digits this many times as densely (a tokenizer with fewer of them in its vocabulary than prefrag's estimate assumes)"},
	{"count_by_script", "bool", "count prompt tokens per script as a 32k SentencePiece tokenizer does (English 0.9, figures 2.24, Chinese 5.9 times runes/4) instead of runes/4, on every endpoint and /tokenize"},
	{"embed_models", "[string]", `models that embed, served besides "models" (default: every model whose name contains "embed"); see Embeddings below`},
	{"embed_dims", "int", "length of the embedding vectors (default 64)"},
	{"embed_delay_ms", "int", "pause before answering every embedding call, in milliseconds"},
	{"embed_errors", "int", "fail the first N embedding calls with HTTP 500"},
	{"pooling_none", "bool", "llama.cpp: refuse embeddings as a server whose model has no pooling does (HTTP 400 \"Pooling type 'none' is not OAI compatible…\")"},
	{"embed_batch_tokens", "int", "llama.cpp: refuse a text longer than this many tokens (runes/4) as its physical batch does (HTTP 500)"},
}

// RuleFields documents every key of a rule of the script.
var RuleFields = []ScriptField{
	{"contains", "string", "the rule matches calls whose prompt contains this (empty: every call)"},
	{"kind", "string", `"step", "judge", or empty for both`},
	{"reply", "string", "the text to stream back"},
	{"status", "int", "answer with this HTTP status instead of generating (with error)"},
	{"error", "string", "the error message sent with status"},
	{"die_after", "int", "drop the connection after this many chunks, as a crashed server would"},
	{"endless", "bool", "stream reply over and over, ignoring the generation limit, until the client goes away"},
	{"runaway", "bool", `repeat reply up to the request's generation limit, where the server stops it with "length"`},
}

// WriteScriptHelp writes the script format, for `fakellm -h`.
func WriteScriptHelp(w io.Writer) {
	fmt.Fprintln(w, "Script (--script FILE): one JSON object; unknown keys are errors.")
	table := func(fields []ScriptField) {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, f := range fields {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Key, f.Type, f.Help)
		}
		tw.Flush()
	}
	table(ScriptFields)
	fmt.Fprintln(w, "\nA rule:")
	table(RuleFields)
	fmt.Fprintln(w, "\n"+embeddingsHelp)
	fmt.Fprintln(w, "\nExample:")
	for _, l := range strings.Split(scriptExample, "\n") {
		fmt.Fprintln(w, "  "+l)
	}
}

// scriptExample is a complete script: one search step, a judge that keeps
// the local documents, an answer, and a rule that fails every step call of
// one question with an HTTP 500.
const scriptExample = `{
  "steps": ["Thought: I need the founder.\nAction: Search_Engine\nAction Input: founder of X",
            "Thought: I know it.\nFinal Answer: Y\nSelf-Evaluation: CORRECT\nExplanation: found.\nImprovement Suggestions: None"],
  "judges": ["{\"analysis\": \"the passages name the founder\", \"status\": true}"],
  "rules": [{"contains": "Who is the CEO", "kind": "step", "status": 500, "error": "model crashed"}],
  "chunk_delay_ms": 5
}`

// embeddingsHelp says how the fake embeds, for `fakellm -h`.
var embeddingsHelp = `Embeddings: POST /api/embed (Ollama), POST /v1/embeddings (llama.cpp; the OpenAI mode).
  A text's vector is the normalised sum of one direction per word: lower-cased, a plural "s"
  dropped, stop words (a, an, the, how, do, …) skipped, and the words of one concept sharing one
  direction, so synonyms land close ("mend an automobile" ≈ "car repair"). The concepts:
` + conceptsHelp() + `
  Ollama answers a model that does not embed with 501 "This server does not support embeddings.
  Start it with ` + "`--embeddings`" + `"; llama.cpp embeds when its model (the first of "models") is one;
  the OpenAI mode answers a chat model with 400 "The model does not support Embeddings API".`

func conceptsHelp() string {
	var b strings.Builder
	for _, g := range conceptGroups {
		b.WriteString("    " + strings.Join(g, ", ") + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
