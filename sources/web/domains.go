package web

import (
	"fmt"
	"net/url"
	"strings"
)

// domainList is a set of registrable names; a name matches itself and all
// of its subdomains.
type domainList []string

// parseDomainList normalises allow/deny entries: "Example.org",
// "*.example.org", ".example.org" and "https://example.org/x" all become
// "example.org".
func parseDomainList(entries []string) (domainList, error) {
	var out domainList
	for _, e := range entries {
		d := strings.ToLower(strings.TrimSpace(e))
		if d == "" {
			continue
		}
		if strings.Contains(d, "://") {
			u, err := url.Parse(d)
			if err != nil || u.Hostname() == "" {
				return nil, fmt.Errorf("%q is neither a domain nor a URL", e)
			}
			d = u.Hostname()
		}
		d = strings.TrimPrefix(d, "*")
		d = strings.Trim(d, ".")
		if d == "" || strings.ContainsAny(d, "/ *?#@:") {
			return nil, fmt.Errorf("%q is not a domain", e)
		}
		out = append(out, d)
	}
	return out, nil
}

// matches reports whether host is one of the domains or below one.
func (l domainList) matches(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, d := range l {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// permits applies the allow and deny lists to a result URL: deny wins,
// and a non-empty allow list admits only its domains.
func (s *settings) permits(rawURL string) bool {
	if len(s.allow) == 0 && len(s.deny) == 0 {
		return true
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if s.deny.matches(host) {
		return false
	}
	return len(s.allow) == 0 || s.allow.matches(host)
}
