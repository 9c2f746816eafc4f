package openai

import "github.com/prefrag/prefrag/llm"

// The constructor of this backend's row of the table (llm.Backend).
func init() {
	llm.Register(backend, func(url, model string, opts ...llm.Option) (llm.Client, error) {
		c, err := New(url, model, Auth{}, opts...)
		if err != nil {
			return nil, err
		}
		return c, nil
	})
}
