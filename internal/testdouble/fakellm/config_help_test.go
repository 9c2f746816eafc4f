package fakellm

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// Every key of the script is documented in -h, and the example parses.
func TestScriptHelpCoversEveryKey(t *testing.T) {
	var buf bytes.Buffer
	WriteScriptHelp(&buf)
	help := buf.String()
	for _, c := range []struct {
		typ  reflect.Type
		docs []ScriptField
	}{{reflect.TypeOf(Config{}), ScriptFields}, {reflect.TypeOf(RuleConfig{}), RuleFields}} {
		documented := map[string]bool{}
		for _, f := range c.docs {
			documented[f.Key] = true
		}
		for i := 0; i < c.typ.NumField(); i++ {
			key := strings.Split(c.typ.Field(i).Tag.Get("json"), ",")[0]
			if key == "" || key == "-" {
				continue
			}
			if !documented[key] || !strings.Contains(help, "  "+key+" ") {
				t.Errorf("%s key %q is not documented in fakellm -h", c.typ.Name(), key)
			}
			delete(documented, key)
		}
		for k := range documented {
			t.Errorf("fakellm -h documents %q, which %s does not have", k, c.typ.Name())
		}
	}
	if _, err := ParseConfig([]byte(scriptExample)); err != nil {
		t.Errorf("the -h example does not parse: %v", err)
	}
}
