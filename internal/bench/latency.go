package bench

import (
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"time"
)

// LatencyProxy is a reverse proxy in front of an S3 endpoint that holds back
// the first byte of every answer by Delay plus up to Jitter: the first-byte
// latency of S3 (tens of milliseconds per GET), which the emulators, on this
// machine, do not have. Requests keep their Host header, so SigV4 signatures
// made for the proxy's address verify at the emulator.
type LatencyProxy struct {
	URL           string
	Delay, Jitter time.Duration

	srv      *http.Server
	inflight atomic.Int64
	peak     atomic.Int64
	requests atomic.Int64
}

// StartLatencyProxy starts a proxy to target on a free loopback port.
func StartLatencyProxy(target string, delay, jitter time.Duration) (*LatencyProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &LatencyProxy{URL: "http://" + ln.Addr().String(), Delay: delay, Jitter: jitter}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = &http.Transport{MaxIdleConnsPerHost: 256, MaxIdleConns: 256, IdleConnTimeout: time.Minute}
	rp.ModifyResponse = func(*http.Response) error {
		// The answer's headers are back: hold them as S3's first byte is.
		d := p.Delay
		if p.Jitter > 0 {
			d += rand.N(p.Jitter)
		}
		time.Sleep(d)
		return nil
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := p.inflight.Add(1)
		defer p.inflight.Add(-1)
		p.requests.Add(1)
		for {
			old := p.peak.Load()
			if n <= old || p.peak.CompareAndSwap(old, n) {
				break
			}
		}
		rp.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// Close stops the proxy.
func (p *LatencyProxy) Close() error { return p.srv.Close() }

// Reset clears the counters.
func (p *LatencyProxy) Reset() { p.peak.Store(0); p.requests.Store(0) }

// PeakConcurrency is the most requests in flight at once since Reset.
func (p *LatencyProxy) PeakConcurrency() int64 { return p.peak.Load() }

// Requests counts the requests since Reset.
func (p *LatencyProxy) Requests() int64 { return p.requests.Load() }
