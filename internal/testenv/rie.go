package testenv

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"
)

var (
	portsMu sync.Mutex
	given   = map[int]bool{}
)

// FreePort returns a free loopback port, never one it returned before in
// this process: two emulators started one after the other must not be
// handed the same just-closed port.
func FreePort(t testing.TB) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !given[port] {
			given[port] = true
			return port
		}
	}
	t.Fatal("no fresh loopback port")
	return 0
}

// BuildBootstrap builds a Lambda main package as Lambda runs it
// (CGO_ENABLED=0, -trimpath, stripped) and returns the binary's path.
func BuildBootstrap(t testing.TB, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "bootstrap")
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags", "-s -w", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, err, b)
	}
	return out
}

// RIE is a bootstrap running under aws-lambda-rie.
type RIE struct {
	URL    string
	cmd    *exec.Cmd
	mu     sync.Mutex
	logs   bytes.Buffer
	invoke sync.Mutex // one invocation at a time, as one Lambda instance serves them
}

// StartRIE runs bootstrap under aws-lambda-rie with env (on top of a minimal
// environment) and waits until it accepts invocations. Ports are probed, so
// another process may take one between the probe and the bind; the
// emulator then exits at once, and StartRIE tries again on fresh ports.
func StartRIE(t testing.TB, bootstrap string, env map[string]string) *RIE {
	t.Helper()
	rie := os.Getenv("FILECONTEXT_TEST_RIE")
	if rie == "" {
		t.Fatal("FILECONTEXT_TEST_RIE is not set: start the emulators with localstack/emulators.sh start")
	}
	var last string
	for range 3 {
		if r, ok := startRIE(t, rie, bootstrap, env); ok {
			return r
		} else {
			last = r.Logs()
		}
	}
	t.Fatalf("aws-lambda-rie did not start:\n%s", last)
	return nil
}

func startRIE(t testing.TB, rie, bootstrap string, env map[string]string) (*RIE, bool) {
	port, apiPort := FreePort(t), FreePort(t)
	r := &RIE{URL: fmt.Sprintf("http://127.0.0.1:%d/2015-03-31/functions/function/invocations", port)}
	r.cmd = exec.Command(rie, "--runtime-interface-emulator-address", fmt.Sprintf("127.0.0.1:%d", port),
		"--runtime-api-address", fmt.Sprintf("127.0.0.1:%d", apiPort), bootstrap)
	r.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "AWS_LAMBDA_FUNCTION_TIMEOUT=30"}
	for k, v := range env {
		r.cmd.Env = append(r.cmd.Env, k+"="+v)
	}
	r.cmd.Stdout = r
	r.cmd.Stderr = r
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { r.cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-exited:
			return r, false
		default:
		}
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			r.cmd.Process.Kill()
			<-exited
			return r, false
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A listener that is not ours answers too; ours is still running.
	select {
	case <-exited:
		return r, false
	case <-time.After(150 * time.Millisecond):
	}
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("aws-lambda-rie output:\n%s", r.Logs())
		}
	})
	return r, true
}

// Write collects the emulator's and the function's output.
func (r *RIE) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.logs.Write(p)
}

// Logs returns everything written so far.
func (r *RIE) Logs() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.logs.String()
}

// Invoke sends one event and returns the function's answer. Concurrent
// calls wait their turn: the emulator, like one Lambda instance, serves one
// invocation at a time.
func (r *RIE) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	return r.InvokeWithHeaders(ctx, payload, nil)
}

// InvokeWithHeaders is Invoke with headers of the Invoke API, such as
// X-Amz-Client-Context (base64 JSON), which the emulator hands to the
// function as its client context.
func (r *RIE) InvokeWithHeaders(ctx context.Context, payload []byte, headers map[string]string) ([]byte, error) {
	r.invoke.Lock()
	defer r.invoke.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return b, fmt.Errorf("invoke answered %s: %s", resp.Status, b)
	}
	return b, nil
}

var initDuration = regexp.MustCompile(`Init Duration: ([0-9.]+) ms`)

// InitDuration returns the init duration the emulator reported, if any.
func (r *RIE) InitDuration() (time.Duration, bool) {
	m := initDuration.FindStringSubmatch(r.Logs())
	if m == nil {
		return 0, false
	}
	ms, _ := strconv.ParseFloat(m[1], 64)
	return time.Duration(ms * float64(time.Millisecond)), true
}
