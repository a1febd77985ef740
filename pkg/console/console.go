// Package console serves the approval console: one page of plain HTML, CSS
// and JavaScript embedded in the binary, and a same-origin JSON API that
// forwards to the approval routes (CONTRACT §6) as the operator.
//
// The console acts with the identity of whoever runs it: the local server's
// operator, or the AWS credentials of `filecontext console --sigv4`, which
// sign on the server side and never reach the browser. What protects that
// identity from other web pages and other local users:
//
//   - it answers only requests whose Host is a loopback name (127.0.0.1,
//     localhost, [::1]), so a DNS-rebinding page cannot reach it;
//   - a browser gets a session cookie (HttpOnly, SameSite=Strict) when it
//     opens the page, or, with Options.Key, only by opening the URL that
//     carries the key;
//   - every state-changing request carries the session's token in the
//     X-CSRF-Token header and passes net/http's cross-origin protection
//     (Sec-Fetch-Site / Origin);
//   - the page's Content-Security-Policy allows scripts, styles, images and
//     connections from its own origin only, no inline script, no framing.
package console

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

// Backend sends one request to the approval routes as the operator and
// returns the answer's status and JSON body, error answers included. An
// error means the routes could not be reached at all.
type Backend func(ctx context.Context, method, path string, body []byte) (status int, out []byte, err error)

// Options configure a console.
type Options struct {
	// Prefix is where the console is mounted ("/console" when empty).
	Prefix string
	// Key, when set, is the secret a browser must present once, in the URL
	// LoginURL gives, before it gets a session. Without it any browser on
	// this machine that opens the page gets one.
	Key string
	// Serving names what the console decides on (a directory, an API URL),
	// shown in the page's header.
	Serving string
}

// CSP is the Content-Security-Policy of every answer: same-origin scripts,
// styles, images and connections, no inline script, no plugins, no framing.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// CSRFHeader carries the session's token on state-changing requests.
const CSRFHeader = "X-CSRF-Token"

// maxSessions bounds the sessions kept; the oldest goes first.
const maxSessions = 64

//go:embed assets
var assets embed.FS

var page = template.Must(template.ParseFS(assets, "assets/index.html"))

// Handler is the console.
type Handler struct {
	backend Backend
	opts    Options
	cookie  string // the session cookie's name, unique per console
	cop     *http.CrossOriginProtection

	mu       sync.Mutex
	sessions map[string]string // session id → CSRF token
	order    []string          // session ids, oldest first
}

// New returns a console over backend.
func New(backend Backend, opts Options) *Handler {
	if opts.Prefix == "" {
		opts.Prefix = "/console"
	}
	opts.Prefix = strings.TrimSuffix(opts.Prefix, "/")
	return &Handler{
		backend: backend, opts: opts, cop: http.NewCrossOriginProtection(),
		// Cookies are not scoped by port: two consoles on one machine keep
		// their sessions apart by name.
		cookie:   "filecontext_console_" + randomHex(4),
		sessions: map[string]string{},
	}
}

// LoginURL is the URL to open on base (http://127.0.0.1:PORT): the page,
// with the key when the console has one.
func (h *Handler) LoginURL(base string) string {
	u := strings.TrimSuffix(base, "/") + h.opts.Prefix + "/"
	if h.opts.Key != "" {
		u += "?key=" + url.QueryEscape(h.opts.Key)
	}
	return u
}

// NewKey returns a random key for Options.Key.
func NewKey() string { return randomHex(16) }

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	if !loopbackHost(r.Host) {
		h.fail(w, fault.New(fault.Forbidden, "The approval console answers on a loopback address only (127.0.0.1, localhost or [::1]), not %q.", r.Host))
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, h.opts.Prefix)
	if !ok {
		h.fail(w, fault.New(fault.NotFound, "No console page at %s.", r.URL.Path))
		return
	}
	switch {
	case rest == "":
		http.Redirect(w, r, h.opts.Prefix+"/", http.StatusFound)
	case rest == "/":
		h.page(w, r)
	case rest == "/app.js" || rest == "/app.css" || rest == "/favicon.svg":
		h.asset(w, r, rest[1:])
	case rest == "/api/approvals" || strings.HasPrefix(rest, "/api/approvals/"):
		h.api(w, r, strings.TrimPrefix(rest, "/api"))
	default:
		h.fail(w, fault.New(fault.NotFound, "No console page at %s.", r.URL.Path))
	}
}

// loopbackHost reports whether a Host header names this machine by a
// loopback name.
func loopbackHost(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

func (h *Handler) page(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		h.fail(w, fault.New(fault.MethodNotAllowed, "The console page is read with GET."))
		return
	}
	if key := r.URL.Query().Get("key"); key != "" || h.opts.Key != "" {
		if key != "" && h.opts.Key != "" && subtle.ConstantTimeCompare([]byte(key), []byte(h.opts.Key)) == 1 {
			h.startSession(w)
			// The key leaves the address bar and the history.
			http.Redirect(w, r, h.opts.Prefix+"/", http.StatusFound)
			return
		}
		if key != "" || h.session(r) == "" {
			h.fail(w, fault.New(fault.Forbidden, "Open the console with the URL `filecontext console` printed; it carries this console's key."))
			return
		}
	}
	token := h.session(r)
	if token == "" {
		token = h.startSession(w)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	page.Execute(w, map[string]string{"Token": token, "Serving": h.opts.Serving, "Prefix": h.opts.Prefix})
}

// startSession sets a new session cookie and returns its CSRF token.
func (h *Handler) startSession(w http.ResponseWriter) string {
	id, token := randomHex(32), randomHex(32)
	h.mu.Lock()
	h.sessions[id] = token
	h.order = append(h.order, id)
	if len(h.order) > maxSessions {
		delete(h.sessions, h.order[0])
		h.order = h.order[1:]
	}
	h.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: h.cookie, Value: id, Path: h.opts.Prefix + "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return token
}

// session returns the CSRF token of the request's session, "" if it has none.
func (h *Handler) session(r *http.Request) string {
	c, err := r.Cookie(h.cookie)
	if err != nil {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[c.Value]
}

func (h *Handler) asset(w http.ResponseWriter, r *http.Request, name string) {
	b, _ := assets.ReadFile("assets/" + name)
	types := map[string]string{"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8", "favicon.svg": "image/svg+xml"}
	w.Header().Set("Content-Type", types[name])
	w.Header().Set("Cache-Control", "no-cache")
	sum := sha256.Sum256(b)
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}

// api forwards /approvals... to the backend, for a browser with a session;
// a state-changing request also needs the session's token and the same
// origin.
func (h *Handler) api(w http.ResponseWriter, r *http.Request, path string) {
	token := h.session(r)
	if token == "" {
		h.fail(w, fault.New(fault.Forbidden, "This browser has no console session; reload the console page."))
		return
	}
	var body []byte
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if err := h.cop.Check(r); err != nil {
			h.fail(w, fault.New(fault.Forbidden, "Cross-origin requests are refused: %v.", err))
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(CSRFHeader)), []byte(token)) != 1 {
			h.fail(w, fault.New(fault.Forbidden, "The request carries no valid %s header; reload the console page.", CSRFHeader))
			return
		}
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
		if err != nil {
			h.fail(w, fault.New(fault.RequestTooLarge, "A console request body is at most 64 KiB."))
			return
		}
		body = b
	}
	target := path
	if q := forwardQuery(r.URL.Query()); q != "" {
		target += "?" + q
	}
	status, out, err := h.backend(r.Context(), r.Method, target, body)
	if err != nil {
		h.fail(w, fault.New(fault.StorageError, "The approval API could not be reached: %v.", err).WithCause(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(out)
}

// forwardQuery keeps the list parameters of the approval routes.
func forwardQuery(q url.Values) string {
	out := url.Values{}
	for _, k := range []string{"status", "limit", "nextToken"} {
		if v := q.Get(k); v != "" {
			out.Set(k, v)
		}
	}
	return out.Encode()
}

// fail writes an error answer in the API's error shape.
func (h *Handler) fail(w http.ResponseWriter, err error) {
	res := toolapi.ErrorResult(err)
	b, _ := json.Marshal(res.Body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(res.Status)
	w.Write(b)
}

// ErrNotLoopback is returned by CheckAddr for an address other than loopback.
var ErrNotLoopback = errors.New("the approval console listens on a loopback address only (127.0.0.1, [::1] or localhost)")

// CheckAddr refuses a listen address that is not loopback.
func CheckAddr(addr string) error {
	if !loopbackHost(addr) {
		return ErrNotLoopback
	}
	return nil
}
