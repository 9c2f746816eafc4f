//go:build !unix

package retrieval

import "os"

// childUsage: peak RSS is not known here.
func childUsage(ps *os.ProcessState) (rss int64, cpu float64) {
	return 0, ps.UserTime().Seconds() + ps.SystemTime().Seconds()
}
