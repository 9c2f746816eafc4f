package app

// The LLM backends linked into prefrag. Each package registers the
// constructor of its row of llm's backend table; nothing else here names
// a backend.
import (
	_ "github.com/prefrag/prefrag/llm/llamacpp"
	_ "github.com/prefrag/prefrag/llm/ollama"
	_ "github.com/prefrag/prefrag/llm/openai"
)
