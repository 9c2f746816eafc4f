package remote

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Spec
		ok   bool
		url  string
		says string
	}{
		{"es", Spec{Kind: KindElasticsearch, URL: "https://es.example:9200/", Index: "kb"}, true, "https://es.example:9200", ""},
		{"es path prefix", Spec{Kind: KindElasticsearch, URL: "http://127.0.0.1:8080/es", Index: "kb-*"}, true, "http://127.0.0.1:8080/es", ""},
		{"es user in URL", Spec{Kind: KindElasticsearch, URL: "https://elastic:s3cr3t-pw@es.example:9200", Index: "kb"}, false, "", "user name or password"},
		{"es key in query", Spec{Kind: KindElasticsearch, URL: "https://es.example:9200/?api_key=s3cr3t-pw", Index: "kb"}, false, "", "query"},
		{"es wrong scheme", Spec{Kind: KindElasticsearch, URL: "ftp://es.example", Index: "kb"}, false, "", "http://"},
		{"no index", Spec{Kind: KindElasticsearch, URL: "http://h:9200"}, false, "", "--index"},
		{"bad field", Spec{Kind: KindElasticsearch, URL: "http://h:9200", Index: "kb", TitleField: "a b"}, false, "", "--title-field"},
		{"env value not name", Spec{Kind: KindElasticsearch, URL: "http://h:9200", Index: "kb", APIKeyEnv: "s3cr3t-pw=="}, false, "", "NAME of an environment variable"},
		{"user without password", Spec{Kind: KindElasticsearch, URL: "http://h:9200", Index: "kb", UserEnv: "U"}, false, "", "both"},
		{"bad timeout", Spec{Kind: KindElasticsearch, URL: "http://h:9200", Index: "kb", Timeout: "soon"}, false, "", "--timeout"},
		{"manticore hostport", Spec{Kind: KindManticore, URL: "127.0.0.1:9306", Index: "dist"}, true, "127.0.0.1:9306", ""},
		{"manticore mysql url", Spec{Kind: KindManticore, URL: "mysql://127.0.0.1:9306", Index: "dist"}, true, "mysql://127.0.0.1:9306", ""},
		{"manticore creds", Spec{Kind: KindManticore, URL: "root:s3cr3t-pw@127.0.0.1:9306", Index: "dist"}, false, "", "user name or password"},
		{"manticore creds url", Spec{Kind: KindManticore, URL: "mysql://root:s3cr3t-pw@127.0.0.1:9306", Index: "dist"}, false, "", "user name or password"},
		{"manticore api key", Spec{Kind: KindManticore, URL: "127.0.0.1:9306", Index: "dist", APIKeyEnv: "K"}, false, "", "no API keys"},
		{"unknown kind", Spec{Kind: "solr", URL: "http://h", Index: "x"}, false, "", "unknown kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.s.Normalize("kb")
			if (err == nil) != tc.ok {
				t.Fatalf("err %v", err)
			}
			if err != nil {
				if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), tc.says) {
					t.Errorf("error %q, want it to say %q", err, tc.says)
				}
				if strings.Contains(err.Error(), "s3cr3t-pw") {
					t.Errorf("error repeats the secret: %v", err)
				}
				return
			}
			if got.URL != tc.url {
				t.Errorf("url %q", got.URL)
			}
		})
	}
	if a := (Spec{Kind: KindManticore, URL: "mysql://127.0.0.1:9306"}).Addr(); a != "127.0.0.1:9306" {
		t.Errorf("addr %q", a)
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	s := Spec{Kind: KindElasticsearch, URL: "http://127.0.0.1:9200/", Index: "kb", APIKeyEnv: "KB_KEY", Timeout: "2500ms"}
	if err := Save(dir, "kb", s); err != nil {
		t.Fatal(err)
	}
	if !IsRemote(dir, "kb") || IsRemote(dir, "other") {
		t.Error("IsRemote")
	}
	got, err := Load(dir, "kb")
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != "http://127.0.0.1:9200" || got.APIKeyEnv != "KB_KEY" || got.RequestTimeout().Milliseconds() != 2500 || got.Added.IsZero() {
		t.Errorf("loaded %+v", got)
	}
	if err := Save(dir, "kb", s); !errors.Is(err, ErrExists) {
		t.Errorf("second save: %v", err)
	}
	if _, err := Load(dir, "other"); !errors.Is(err, ErrNotRemote) {
		t.Errorf("missing: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "kb", SpecFile), []byte("{broken"), 0o644)
	if _, err := Load(dir, "kb"); !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), "corpora rm kb") {
		t.Errorf("damaged: %v", err)
	}
}

func TestCredentials(t *testing.T) {
	env := map[string]string{"KB_USER": "analyst", "KB_PW": "pw-value"}
	get := func(k string) string { return env[k] }
	s := Spec{Kind: KindElasticsearch, UserEnv: "KB_USER", PasswordEnv: "KB_PW"}
	c, err := s.Credentials("kb", get)
	if err != nil || c.User != "analyst" || c.Password != "pw-value" {
		t.Fatalf("%+v %v", c, err)
	}
	s.PasswordEnv = "KB_MISSING"
	_, err = s.Credentials("kb", get)
	if !errors.Is(err, ErrCredentials) || !strings.Contains(err.Error(), "KB_MISSING") || strings.Contains(err.Error(), "analyst") {
		t.Errorf("err %v", err)
	}
}

// Whatever address is given, a refusal never repeats the password in it,
// and an accepted address carries none.
func FuzzNormalizeURL(f *testing.F) {
	f.Add("https://es.example:9200", "elasticsearch")
	f.Add("127.0.0.1:9306", "manticore")
	f.Add("mysql://u@h:1", "manticore")
	f.Add("http://[::1]:9200/es/", "elasticsearch")
	f.Add("http://h:9200/%zz", "elasticsearch")
	const pw = "Zq9pw7secret"
	f.Fuzz(func(t *testing.T, addr, kind string) {
		for _, u := range []string{addr, strings.Replace(addr, "://", "://user:"+pw+"@", 1), "user:" + pw + "@" + addr} {
			got, err := Spec{Kind: kind, URL: u, Index: "kb"}.Normalize("kb")
			if err != nil {
				if strings.Contains(err.Error(), pw) {
					t.Fatalf("error repeats the password: %v", err)
				}
				continue
			}
			if strings.Contains(got.URL, pw) && !strings.Contains(addr, pw) {
				t.Fatalf("accepted an address with a password: %q", got.URL)
			}
		}
	})
}
