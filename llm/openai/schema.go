package openai

import "encoding/json"

// strictSchema closes an object schema (additionalProperties false) when
// it does not say, as OpenAI's strict structured output requires; other
// servers take it as it is meant.
func strictSchema(schema []byte) json.RawMessage {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil || s["type"] != "object" {
		return schema
	}
	if _, set := s["additionalProperties"]; set {
		return schema
	}
	s["additionalProperties"] = false
	b, err := json.Marshal(s)
	if err != nil {
		return schema
	}
	return b
}
