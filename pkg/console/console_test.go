package console_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/console"
)

// session is a browser-like client of a console: it keeps cookies and
// reads the page's token.
type session struct {
	t     *testing.T
	base  string
	http  *http.Client
	token string
}

func newSession(t *testing.T, base string) *session {
	jar, _ := cookiejar.New(nil)
	return &session{t: t, base: base, http: &http.Client{Jar: jar}}
}

var tokenRe = regexp.MustCompile(`<meta name="csrf-token" content="([0-9a-f]+)">`)

// open loads the page (following redirects) and keeps its token.
func (s *session) open(path string) *http.Response {
	s.t.Helper()
	resp, err := s.http.Get(s.base + path)
	if err != nil {
		s.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if m := tokenRe.FindSubmatch(b); m != nil {
		s.token = string(m[1])
	}
	return resp
}

func (s *session) do(method, path, body string, header map[string]string) (int, map[string]any) {
	s.t.Helper()
	req, _ := http.NewRequest(method, s.base+path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func codeOf(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func TestThePageItsHeadersAndAssets(t *testing.T) {
	w := newWorld(t, nil)
	srv := httptest.NewServer(console.New(w.backend("ops"), console.Options{Serving: "/srv/<docs>"}))
	defer srv.Close()
	s := newSession(t, srv.URL)
	// /console redirects to /console/, which sets the session cookie.
	resp := s.open("/console")
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/console/" || s.token == "" {
		t.Fatalf("page = %d at %s, token %q", resp.StatusCode, resp.Request.URL, s.token)
	}
	h := resp.Header
	if h.Get("Content-Security-Policy") != console.CSP || !strings.Contains(console.CSP, "script-src 'self'") || strings.Contains(console.CSP, "unsafe-inline") {
		t.Errorf("CSP = %q", h.Get("Content-Security-Policy"))
	}
	for k, v := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Content-Type": "text/html; charset=utf-8"} {
		if h.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, h.Get(k), v)
		}
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode || cookies[0].Path != "/console/" {
		t.Errorf("cookies = %+v", cookies)
	}
	// The page escapes what it names.
	page, _ := s.http.Get(srv.URL + "/console/")
	b, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if !strings.Contains(string(b), "/srv/&lt;docs&gt;") || regexp.MustCompile(`<script>|\son[a-z]+=`).Match(b) {
		t.Errorf("page: %s", b)
	}
	for name, typ := range map[string]string{"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8", "favicon.svg": "image/svg+xml"} {
		resp, err := http.Get(srv.URL + "/console/" + name)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != typ || len(body) == 0 || resp.Header.Get("ETag") == "" {
			t.Errorf("%s = %d %q %d bytes", name, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
		// Nothing is loaded from elsewhere: no absolute URL in a source,
		// a link, a fetch or a CSS url().
		if m := regexp.MustCompile(`(src|href)\s*=\s*["']?(https?:)?//|url\(\s*["']?(https?:)?//|fetch\(\s*["']https?:|import\s`).Find(body); m != nil {
			t.Errorf("%s refers outside: %s", name, m)
		}
		req, _ := http.NewRequest("GET", srv.URL+"/console/"+name, nil)
		req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
		if again, err := http.DefaultClient.Do(req); err != nil || again.StatusCode != 304 {
			t.Errorf("%s revalidation = %v %v", name, again, err)
		}
	}
	for _, tc := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/console/nothing", 404, "not_found"},
		{"GET", "/elsewhere", 404, "not_found"},
		{"POST", "/console/", 405, "method_not_allowed"},
	} {
		if status, m := s.do(tc.method, tc.path, "", nil); status != tc.status || codeOf(m) != tc.code {
			t.Errorf("%s %s = %d %v", tc.method, tc.path, status, m)
		}
	}
}

// TestOnlyLoopbackHostsAreAnswered: a page on another name that resolves to
// 127.0.0.1 (DNS rebinding) gets nothing.
func TestOnlyLoopbackHostsAreAnswered(t *testing.T) {
	w := newWorld(t, nil)
	h := console.New(w.backend("ops"), console.Options{})
	for host, want := range map[string]int{"127.0.0.1:8080": 200, "localhost:1": 200, "[::1]:9": 200, "127.0.0.2": 200, "LOCALHOST": 200,
		"evil.example:8080": 403, "10.0.0.1:80": 403, "127.0.0.1.nip.io": 403, "": 403} {
		r := httptest.NewRequest("GET", "/console/", nil)
		r.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != want {
			t.Errorf("Host %q = %d, want %d", host, rec.Code, want)
		}
	}
	for addr, ok := range map[string]bool{"127.0.0.1:0": true, "localhost:8080": true, "[::1]:0": true, "0.0.0.0:8080": false, ":8080": false, "192.168.1.2:80": false} {
		if err := console.CheckAddr(addr); (err == nil) != ok || (err != nil && !errors.Is(err, console.ErrNotLoopback)) {
			t.Errorf("CheckAddr(%q) = %v", addr, err)
		}
	}
}

// TestStateChangesNeedTheSessionToken is the CSRF test: without the
// session, without the token, with another session's token or from another
// origin, nothing is decided; with them the change applies.
func TestStateChangesNeedTheSessionToken(t *testing.T) {
	w := newWorld(t, map[string]string{"a.md": "one\n"})
	id := w.park(t, "file_access_write", map[string]any{"fileName": "a.md", "content": "two\n", "overwrite": true})
	srv := httptest.NewServer(console.New(w.backend("ops"), console.Options{}))
	defer srv.Close()
	approve := "/console/api/approvals/" + id + "/approve"

	stranger := newSession(t, srv.URL)
	if status, m := stranger.do("GET", "/console/api/approvals", "", nil); status != 403 || codeOf(m) != "forbidden" {
		t.Errorf("list without a session = %d %v", status, m)
	}
	if status, m := stranger.do("POST", approve, "{}", map[string]string{console.CSRFHeader: "x"}); status != 403 || codeOf(m) != "forbidden" {
		t.Errorf("approve without a session = %d %v", status, m)
	}
	s, other := newSession(t, srv.URL), newSession(t, srv.URL)
	s.open("/console/")
	other.open("/console/")
	if s.token == other.token || s.token == "" {
		t.Fatalf("tokens %q %q", s.token, other.token)
	}
	if status, m := s.do("GET", "/console/api/approvals?status=pending&limit=5&other=x", "", nil); status != 200 || len(m["approvals"].([]any)) != 1 {
		t.Errorf("list = %d %v", status, m)
	}
	for name, header := range map[string]map[string]string{
		"no token":             nil,
		"another session's":    {console.CSRFHeader: other.token},
		"a cross-site request": {console.CSRFHeader: s.token, "Sec-Fetch-Site": "cross-site"},
		"another origin":       {console.CSRFHeader: s.token, "Origin": "http://evil.example"},
	} {
		if status, m := s.do("POST", approve, "{}", header); status != 403 || codeOf(m) != "forbidden" {
			t.Errorf("%s: approve = %d %v", name, status, m)
		}
	}
	if got := w.file(t, "a.md"); got != "one\n" {
		t.Fatalf("a refused approve changed the file: %q", got)
	}
	if status, m := s.do("POST", "/console/api/approvals/"+id+"/reject", `{"reason":"`+strings.Repeat("x", 70<<10)+`"}`, map[string]string{console.CSRFHeader: s.token}); status != 413 || codeOf(m) != "request_too_large" {
		t.Errorf("huge body = %d %v", status, m)
	}
	status, m := s.do("POST", approve, "{}", map[string]string{console.CSRFHeader: s.token, "Sec-Fetch-Site": "same-origin", "Origin": srv.URL})
	if status != 200 || m["status"] != "applied" || m["decidedBy"] != "ops" {
		t.Fatalf("approve = %d %v", status, m)
	}
	if got := w.file(t, "a.md"); got != "two\n" {
		t.Errorf("file = %q", got)
	}
	// The API's own errors come through as they are.
	if status, m := s.do("POST", approve, "{}", map[string]string{console.CSRFHeader: s.token}); status != 409 || codeOf(m) != "conflict" {
		t.Errorf("second approve = %d %v", status, m)
	}
}

// TestAKeyedConsoleGivesSessionsOnlyForTheKey: `filecontext console` acts
// with the operator's AWS credentials, so another local user who finds the
// port gets nothing without the printed URL.
func TestAKeyedConsoleGivesSessionsOnlyForTheKey(t *testing.T) {
	w := newWorld(t, nil)
	key := console.NewKey()
	h := console.New(w.backend("ops"), console.Options{Key: key, Prefix: "/console/"})
	srv := httptest.NewServer(h)
	defer srv.Close()
	login := h.LoginURL(srv.URL)
	if login != srv.URL+"/console/?key="+key || len(key) != 32 {
		t.Fatalf("login URL %q", login)
	}
	s := newSession(t, srv.URL)
	if resp := s.open("/console/"); resp.StatusCode != 403 || s.token != "" {
		t.Errorf("no key = %d", resp.StatusCode)
	}
	if resp := s.open("/console/?key=" + strings.Repeat("0", 32)); resp.StatusCode != 403 || s.token != "" {
		t.Errorf("wrong key = %d", resp.StatusCode)
	}
	resp := s.open(strings.TrimPrefix(login, srv.URL))
	if resp.StatusCode != 200 || resp.Request.URL.RawQuery != "" || s.token == "" {
		t.Fatalf("key = %d at %s", resp.StatusCode, resp.Request.URL)
	}
	// The session stays; the key is not needed again.
	if resp := s.open("/console/"); resp.StatusCode != 200 {
		t.Errorf("reload = %d", resp.StatusCode)
	}
	if status, _ := s.do("GET", "/console/api/approvals", "", nil); status != 200 {
		t.Errorf("list = %d", status)
	}
	if u := console.New(nil, console.Options{}).LoginURL("http://127.0.0.1:1/"); u != "http://127.0.0.1:1/console/" {
		t.Errorf("unkeyed login URL %q", u)
	}
}

func TestOldSessionsEnd(t *testing.T) {
	w := newWorld(t, nil)
	srv := httptest.NewServer(console.New(w.backend("ops"), console.Options{}))
	defer srv.Close()
	first := newSession(t, srv.URL)
	first.open("/console/")
	if status, _ := first.do("GET", "/console/api/approvals", "", nil); status != 200 {
		t.Fatalf("first session = %d", status)
	}
	for range 64 {
		newSession(t, srv.URL).open("/console/")
	}
	if status, _ := first.do("GET", "/console/api/approvals", "", nil); status != 403 {
		t.Errorf("the oldest of 65 sessions = %d, want 403", status)
	}
}

func TestAnUnreachableAPIIsAStorageError(t *testing.T) {
	down := func(context.Context, string, string, []byte) (int, []byte, error) {
		return 0, nil, errors.New("dial tcp 127.0.0.1:1: connection refused")
	}
	srv := httptest.NewServer(console.New(down, console.Options{}))
	defer srv.Close()
	s := newSession(t, srv.URL)
	s.open("/console/")
	status, m := s.do("GET", "/console/api/approvals", "", nil)
	if status != 502 || codeOf(m) != "storage_error" || !strings.Contains(m["error"].(map[string]any)["message"].(string), "connection refused") {
		t.Errorf("= %d %v", status, m)
	}
}
