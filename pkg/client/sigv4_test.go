package client_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/filecontext-aws/filecontext/pkg/client"
	"github.com/filecontext-aws/filecontext/pkg/fault"
)

const (
	akid   = "AKIDEXAMPLE"
	secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	token  = "session-token-example"
)

// botocore computes the Authorization header of a request with botocore.
func botocore(t *testing.T, req *http.Request, body []byte) string {
	t.Helper()
	headers := map[string]string{}
	for k, v := range req.Header {
		if k != "Authorization" {
			headers[k] = v[0]
		}
	}
	for _, h := range signedHeaders(req.Header.Get("Authorization")) {
		switch h {
		case "host":
			headers["Host"] = req.Host
		case "content-length":
			headers["Content-Length"] = itoa(len(body))
		}
	}
	in, _ := json.Marshal(map[string]any{"method": req.Method, "url": req.URL.String(), "headers": headers, "body": string(body),
		"access_key": akid, "secret_key": secret, "token": token, "region": "eu-west-1"})
	cmd := exec.Command("python3", "testdata/botocore_sigv4.py", "sign")
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("botocore: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

func itoa(n int) string { return jsonNumber(n) }

func jsonNumber(n int) string { b, _ := json.Marshal(n); return string(b) }

func signedHeaders(auth string) []string {
	for _, part := range strings.Split(auth, ", ") {
		if v, ok := strings.CutPrefix(part, "SignedHeaders="); ok {
			return strings.Split(v, ";")
		}
	}
	return nil
}

func TestSignaturesMatchBotocore(t *testing.T) {
	signer := &client.Signer{Credentials: credentials.NewStaticCredentialsProvider(akid, secret, token), Region: "eu-west-1",
		Now: func() time.Time { return time.Date(2026, 11, 30, 12, 34, 56, 0, time.UTC) }}
	for _, tc := range []struct {
		method, url string
		body        []byte
	}{
		{"GET", "https://abc123.execute-api.eu-west-1.amazonaws.com/dev/tools", nil},
		{"GET", "https://abc123.execute-api.eu-west-1.amazonaws.com/dev/approvals?status=pending&limit=10", nil},
		{"POST", "https://abc123.execute-api.eu-west-1.amazonaws.com/dev/tools/file_access_read", []byte(`{"fileName":"notes/a b.md"}`)},
		{"POST", "https://abc123.execute-api.eu-west-1.amazonaws.com/dev/tools/file_access_write", []byte(`{"fileName":"x.md","content":"héllo\n"}`)},
	} {
		req, _ := http.NewRequest(tc.method, tc.url, bytes.NewReader(tc.body))
		if tc.body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if err := signer.Sign(context.Background(), req, tc.body); err != nil {
			t.Fatal(err)
		}
		ours := req.Header.Get("Authorization")
		if !strings.HasPrefix(ours, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261130/eu-west-1/execute-api/aws4_request") {
			t.Fatalf("authorization = %s", ours)
		}
		if theirs := botocore(t, req, tc.body); theirs != ours {
			t.Errorf("%s %s:\n ours   %s\n botocore %s", tc.method, tc.url, ours, theirs)
		}
	}
}

// tamper changes the body after the request was signed.
type tamper struct{ next http.RoundTripper }

func (tp tamper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		b = bytes.Replace(b, []byte("notes"), []byte("secrets"), 1)
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.ContentLength = int64(len(b))
	}
	return tp.next.RoundTrip(req)
}

func TestAVerifyingServerRejectsATamperedBody(t *testing.T) {
	cmd := exec.Command("python3", "testdata/botocore_sigv4.py", "serve", akid, secret, "eu-west-1")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	port, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://127.0.0.1:" + strings.TrimSpace(port)
	signer := &client.Signer{Credentials: credentials.NewStaticCredentialsProvider(akid, secret, ""), Region: "eu-west-1"}
	c := client.New(endpoint, client.WithSigner(signer), client.WithRetries(0))
	out, status, err := c.Call(context.Background(), "file_access_read", map[string]any{"fileName": "notes/a.md"})
	if err != nil || status != 200 || !strings.Contains(string(out), `"verified": true`) {
		t.Fatalf("a signed call = %d %s %v", status, out, err)
	}
	if _, err := c.Catalog(context.Background()); err != nil {
		t.Errorf("a signed GET: %v", err)
	}
	bad := client.New(endpoint, client.WithSigner(signer), client.WithRetries(0), client.WithHTTPClient(&http.Client{Transport: tamper{http.DefaultTransport}}))
	_, _, err = bad.Call(context.Background(), "file_access_read", map[string]any{"fileName": "notes/a.md"})
	if !client.IsCode(err, fault.Forbidden) {
		t.Errorf("a tampered body: %v", err)
	}
	unsigned := client.New(endpoint, client.WithRetries(0))
	if _, _, err := unsigned.Call(context.Background(), "file_access_read", map[string]any{}); !client.IsCode(err, fault.Forbidden) {
		t.Errorf("an unsigned call: %v", err)
	}
}
