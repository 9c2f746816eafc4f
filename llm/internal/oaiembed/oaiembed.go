// Package oaiembed is the OpenAI-compatible POST /v1/embeddings exchange
// that llama-server and OpenAI-compatible servers (vLLM, SGLang, LM Studio,
// LiteLLM) share: the request body and the decoding of the answer.
package oaiembed

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

// Request is the body sent: every text in one "input" list, vectors asked
// as floats.
func Request(model string, texts []string) map[string]any {
	body := map[string]any{"input": texts, "encoding_format": "float"}
	if model != "" {
		body["model"] = model
	}
	return body
}

// Answer is the decoded answer.
type Answer struct {
	Vectors      [][]float32
	Model        string
	PromptTokens int
}

type wire struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// Decode reads an answer: the "data" items put back in "index" order
// (servers may answer out of order), the model and the token count.
func Decode(raw []byte) (Answer, error) {
	var w wire
	if err := json.Unmarshal(raw, &w); err != nil {
		return Answer{}, fmt.Errorf("the embeddings answer is not the expected JSON: %w", err)
	}
	sort.SliceStable(w.Data, func(i, j int) bool { return w.Data[i].Index < w.Data[j].Index })
	a := Answer{Model: w.Model, PromptTokens: w.Usage.PromptTokens}
	if a.PromptTokens == 0 {
		a.PromptTokens = w.Usage.TotalTokens
	}
	for i, d := range w.Data {
		if d.Index != i {
			return Answer{}, fmt.Errorf("the embeddings answer has no item of index %d", i)
		}
		a.Vectors = append(a.Vectors, d.Embedding)
	}
	return a, nil
}

// Post embeds texts with one POST to path p of ep, under a first-byte
// watchdog. An error status is what refused makes of the status and the
// answer's body (each backend reads its server's refusals); model names
// the vectors when the answer does not.
func Post(ctx context.Context, ep *transport.Endpoint, p, model string, texts []string, refused func(status int, raw []byte) error) (llm.Embedding, error) {
	wctx, wd := transport.Watch(ctx, ep.Timeouts.FirstByte, 0)
	defer wd.Stop()
	res, err := ep.Send(wctx, http.MethodPost, p, Request(model, texts), "application/json")
	if err != nil {
		return llm.Embedding{}, transport.Classify(ctx, ep.Backend, ep.Addr, wd, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 256<<20))
	if err != nil {
		return llm.Embedding{}, transport.Classify(ctx, ep.Backend, ep.Addr, wd, err)
	}
	if res.StatusCode >= 400 {
		return llm.Embedding{}, refused(res.StatusCode, raw)
	}
	a, err := Decode(raw)
	if err != nil {
		return llm.Embedding{}, &llm.ServerError{Backend: ep.Backend, Status: res.StatusCode, Message: err.Error()}
	}
	if a.Model == "" {
		a.Model = model
	}
	return llm.Embedding{Vectors: a.Vectors, Model: a.Model, PromptTokens: a.PromptTokens}, nil
}
