package transport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"

	"github.com/prefrag/prefrag/llm"
)

// Identify tells which kind of LLM server answers at base's host, by what
// it does rather than what it is called: "ollama" when GET /api/version
// gives a version, "llamacpp" when GET /props has llama-server's fields or
// GET /health answers its {"status": …}, "openai" when GET /v1/models is a
// model list and neither of the others answered, "" otherwise. The path of
// base is ignored: each server is asked at its root.
func Identify(ctx context.Context, hc *http.Client, base *url.URL, auth llm.Auth) string {
	root := *base
	root.Path, root.RawPath, root.RawQuery, root.Fragment = "", "", "", ""
	var version struct {
		Version *string `json:"version"`
	}
	if getJSON(ctx, hc, &root, "/api/version", auth, &version) && version.Version != nil {
		return "ollama"
	}
	var props struct {
		Settings *json.RawMessage `json:"default_generation_settings"`
		Slots    *int             `json:"total_slots"`
	}
	if getJSON(ctx, hc, &root, "/props", auth, &props) && (props.Settings != nil || props.Slots != nil) {
		return "llamacpp"
	}
	var health struct {
		Status *string `json:"status"`
	}
	if getJSON(ctx, hc, &root, "/health", auth, &health) && health.Status != nil {
		return "llamacpp"
	}
	var models struct {
		Data *[]json.RawMessage `json:"data"`
	}
	if getJSON(ctx, hc, &root, "/v1/models", auth, &models) && models.Data != nil {
		return "openai"
	}
	return ""
}

// getJSON GETs root+p and decodes a 200 JSON answer into out; false on
// anything else.
func getJSON(ctx context.Context, hc *http.Client, root *url.URL, p string, auth llm.Auth, out any) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, root.JoinPath(p).String(), nil)
	if err != nil {
		return false
	}
	setBearer(req, auth)
	res, err := hc.Do(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil || res.StatusCode != http.StatusOK {
		return false
	}
	return json.Unmarshal(body, out) == nil
}
