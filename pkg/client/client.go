// Package client calls the FileContext API from Go: the local server, or the
// API Gateway deployment with SigV4 signing (service execute-api).
//
// Every tool has a typed call; failures come back as *Error, the error shape
// of CONTRACT §3 with its code. Only idempotent calls are retried (GETs and
// read-only tools, on network errors, 429 and 5xx); a write, an approve or a
// reject is sent once.
package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

// Error is an error answer of the API.
type Error struct {
	Status  int            `json:"-"`
	Code    fault.Code     `json:"code"`
	Message string         `json:"message"`
	Path    string         `json:"path,omitempty"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (%d): %s", e.Code, e.Status, e.Message)
}

// Signer signs requests with SigV4 for API Gateway.
type Signer struct {
	Credentials aws.CredentialsProvider
	Region      string
	Service     string // "execute-api" when empty
	// Now is the signing clock (time.Now when nil).
	Now    func() time.Time
	signer *v4.Signer
}

// Sign signs req, whose body is body, in place.
func (s *Signer) Sign(ctx context.Context, req *http.Request, body []byte) error {
	if s.signer == nil {
		s.signer = v4.NewSigner()
	}
	creds, err := s.Credentials.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	service := s.Service
	if service == "" {
		service = "execute-api"
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	sum := sha256.Sum256(body)
	return s.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), service, s.Region, now().UTC())
}

// Client calls one endpoint: "http://127.0.0.1:8080" for the local server,
// or the stage URL of the API (".../dev/").
type Client struct {
	endpoint string
	http     *http.Client
	signer   *Signer
	retries  int
	readOnly map[string]bool
}

// Option configures a Client.
type Option func(*Client)

// WithSigner signs every request.
func WithSigner(s *Signer) Option { return func(c *Client) { c.signer = s } }

// WithHTTPClient sets the HTTP client.
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithRetries sets how often an idempotent call is retried (default 2).
func WithRetries(n int) Option { return func(c *Client) { c.retries = n } }

// New returns a client of endpoint.
func New(endpoint string, opts ...Option) *Client {
	c := &Client{endpoint: strings.TrimSuffix(endpoint, "/"), http: &http.Client{Timeout: 2 * time.Minute}, retries: 2,
		readOnly: map[string]bool{}}
	for _, name := range ReadOnlyTools {
		c.readOnly[name] = true
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// ReadOnlyTools may be retried.
var ReadOnlyTools = []string{"file_access_read", "file_access_read_lines", "file_context_read_range", "file_access_ls",
	"file_access_grep", "file_context_info", "file_context_download", "file_context_approval_status",
	"file_context_markdown_graph_search", "file_context_markdown_graph_export", "file_context_markdown_graph_related"}

// Do sends one request and returns the status and body of a successful
// answer; an error answer is *Error. idempotent allows retries.
func (c *Client) Do(ctx context.Context, method, path string, body []byte, idempotent bool) (int, []byte, error) {
	attempts := 1
	if idempotent {
		attempts += c.retries
	}
	var lastErr error
	for i := range attempts {
		if i > 0 {
			backoff := time.Duration(50*(1<<i)+rand.IntN(50)) * time.Millisecond
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return 0, nil, ctx.Err()
			}
		}
		status, out, err := c.once(ctx, method, path, body)
		if err == nil && status < 400 {
			return status, out, nil
		}
		if err == nil {
			lastErr = decodeError(status, out)
			if status != http.StatusTooManyRequests && status < 500 {
				return status, out, lastErr
			}
		} else {
			lastErr = err
			if ctx.Err() != nil {
				return 0, nil, err
			}
		}
	}
	return 0, nil, lastErr
}

func (c *Client) once(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.signer != nil {
		if err := c.signer.Sign(ctx, req, body); err != nil {
			return 0, nil, err
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// ErrorOf is the *Error of an error answer (status 400 or over), nil for
// any other: for callers that get answers without Do.
func ErrorOf(status int, body []byte) error {
	if status < 400 {
		return nil
	}
	return decodeError(status, body)
}

func decodeError(status int, body []byte) error {
	var e struct {
		Error *Error `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != nil && e.Error.Code != "" {
		e.Error.Status = status
		return e.Error
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return &Error{Status: status, Code: codeOfStatus(status), Message: msg}
}

// codeOfStatus names a bare status (an API Gateway error, say) in the
// vocabulary.
func codeOfStatus(status int) fault.Code {
	switch status {
	case http.StatusForbidden, http.StatusUnauthorized:
		return fault.Forbidden
	case http.StatusNotFound:
		return fault.NotFound
	case http.StatusRequestEntityTooLarge:
		return fault.RequestTooLarge
	case http.StatusGatewayTimeout:
		return fault.Timeout
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable:
		return fault.StorageError
	}
	if status >= 500 {
		return fault.Internal
	}
	return fault.InvalidArgument
}

// Call runs a tool with arguments (anything that marshals to a JSON
// object) and returns the raw result and its status (200, or 202 for a
// parked write).
func (c *Client) Call(ctx context.Context, tool string, args any) (json.RawMessage, int, error) {
	body, err := json.Marshal(args)
	if err != nil {
		return nil, 0, err
	}
	if string(body) == "null" {
		body = []byte("{}")
	}
	status, out, err := c.Do(ctx, http.MethodPost, "/tools/"+url.PathEscape(tool), body, c.readOnly[tool])
	return out, status, err
}

// CallInto runs a tool and decodes its result into v.
func (c *Client) CallInto(ctx context.Context, tool string, args, v any) error {
	out, _, err := c.Call(ctx, tool, args)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, v)
}

// Catalog is GET /tools.
type Catalog struct {
	Instructions string `json:"instructions"`
	Tools        []struct {
		Name             string         `json:"name"`
		Description      string         `json:"description"`
		InputSchema      map[string]any `json:"inputSchema"`
		ReadOnly         bool           `json:"readOnly"`
		RequiresApproval bool           `json:"requiresApproval"`
	} `json:"tools"`
}

// Catalog fetches the catalog and the agent instructions.
func (c *Client) Catalog(ctx context.Context) (*Catalog, error) {
	_, out, err := c.Do(ctx, http.MethodGet, "/tools", nil, true)
	if err != nil {
		return nil, err
	}
	var cat Catalog
	return &cat, json.Unmarshal(out, &cat)
}

// OpenAPI fetches the OpenAPI document.
func (c *Client) OpenAPI(ctx context.Context) (map[string]any, error) {
	_, out, err := c.Do(ctx, http.MethodGet, "/openapi.json", nil, true)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	return doc, json.Unmarshal(out, &doc)
}

// IsCode reports whether err is an API error with code.
func IsCode(err error, code fault.Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

func itoa(n int) string { return strconv.Itoa(n) }
