package config

import (
	"strings"
	"testing"
)

// TestWebAskHeadlessHintNamesOrigin: the headless notice of web policy
// "ask" names where the policy came from, each origin its own way.
func TestWebAskHeadlessHintNamesOrigin(t *testing.T) {
	for _, tc := range []struct {
		origin Origin
		path   string
		want   string
	}{
		{Origin{Kind: FromFlag, Name: "web"}, "/c/config.toml", "--web ask (flag) needs the interactive app"},
		{Origin{Kind: FromEnv, Name: "PREFRAG_WEB"}, "", "the web policy ask (from $PREFRAG_WEB) needs the interactive app to ask in; headless it acts as never (nothing is sent to the web); set PREFRAG_WEB=auto"},
		{Origin{Kind: FromFile}, "/c/config.toml", `web = "ask" (from /c/config.toml) needs`},
		{Origin{Kind: FromFile}, "", `web = "ask" (from the config file) needs`},
	} {
		c := &Config{FilePath: tc.path, origins: map[string]Origin{"web": tc.origin}}
		if got := c.WebAskHeadlessHint(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%+v: %q, want it to start %q", tc.origin, got, tc.want)
		}
	}
}
