package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/filecontext-aws/filecontext/internal/testenv"
)

func percentile(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s)-1)*p)]
}

// BenchmarkToolsInvoke: 2,000 serial warm invokes of file_access_read on a
// 4 KiB object through aws-lambda-rie, against 2,000 direct GETs of the same
// object; reports the percentiles of both and their difference, the latency
// the handler adds. It also invokes a function that only echoes its event
// under the same emulator, to tell the emulator's own round trip apart.
func BenchmarkToolsInvoke(b *testing.B) {
	target := testenv.Versitygw(b)
	bucket := testenv.NewBucket(b, target.Client)
	body := bytes.Repeat([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"), 64) // 4 KiB
	if _, err := target.Client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("obj.txt"), Body: bytes.NewReader(body)}); err != nil {
		b.Fatal(err)
	}
	rie := testenv.StartRIE(b, testenv.BuildBootstrap(b, "github.com/filecontext-aws/filecontext/functions/tools"), testenv.LambdaEnv(b, bucket, ""))
	echo := testenv.StartRIE(b, testenv.BuildBootstrap(b, "github.com/filecontext-aws/filecontext/internal/bench/echo"), nil)
	args, _ := json.Marshal(map[string]any{"fileName": "obj.txt"})
	event, _ := json.Marshal(map[string]any{"httpMethod": "POST", "path": "/tools/file_access_read",
		"requestContext": map[string]any{"requestId": "bench", "identity": map[string]any{"userArn": "arn:aws:iam::1:user/bench"}}, "body": string(args)})
	ctx := context.Background()
	const n = 2000
	for b.Loop() {
		for range 50 { // warm every path
			rie.Invoke(ctx, event)
			echo.Invoke(ctx, event)
			get(b, target.Client, bucket)
		}
		invokes := make([]time.Duration, 0, n)
		gets := make([]time.Duration, 0, n)
		echoes := make([]time.Duration, 0, n)
		for range n {
			start := time.Now()
			if _, err := echo.Invoke(ctx, event); err != nil {
				b.Fatal(err)
			}
			echoes = append(echoes, time.Since(start))
			start = time.Now()
			out, err := rie.Invoke(ctx, event)
			invokes = append(invokes, time.Since(start))
			if err != nil || !bytes.Contains(out, []byte(`"statusCode":200`)) {
				b.Fatalf("invoke: %v %s", err, out)
			}
			start = time.Now()
			get(b, target.Client, bucket)
			gets = append(gets, time.Since(start))
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		// Paired differences: each invoke against the GET (and echo) measured
		// next to it, so both see the same moment of the machine.
		added := make([]time.Duration, n)
		handler := make([]time.Duration, n)
		for i := range n {
			added[i] = invokes[i] - gets[i]
			handler[i] = invokes[i] - gets[i] - echoes[i]
		}
		b.ReportMetric(ms(percentile(invokes, 0.5)), "invoke-p50-ms")
		b.ReportMetric(ms(percentile(invokes, 0.99)), "invoke-p99-ms")
		b.ReportMetric(ms(percentile(gets, 0.5)), "get-p50-ms")
		b.ReportMetric(ms(percentile(gets, 0.99)), "get-p99-ms")
		b.ReportMetric(ms(percentile(echoes, 0.5)), "rie-echo-p50-ms")
		b.ReportMetric(ms(percentile(echoes, 0.99)), "rie-echo-p99-ms")
		b.ReportMetric(ms(percentile(added, 0.5)), "added-p50-ms")
		b.ReportMetric(ms(percentile(added, 0.99)), "added-p99-ms")
		b.ReportMetric(ms(percentile(handler, 0.5)), "handler-p50-ms")
		b.ReportMetric(ms(percentile(handler, 0.99)), "handler-p99-ms")
	}
}

func get(b *testing.B, c *s3.Client, bucket string) {
	out, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("obj.txt")})
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, out.Body)
	out.Body.Close()
}

// BenchmarkLambdaInit measures each function's init: the time from starting
// the bootstrap process to its first request for an invocation, against a
// runtime API served here, so nothing but the function's own start-up is
// timed. It also reports the stripped arm64 binary and its zip.
func BenchmarkLambdaInit(b *testing.B) {
	for _, fn := range lambdaFunctions() {
		b.Run(filepath.Base(fn), func(b *testing.B) {
			bootstrap := testenv.BuildBootstrap(b, fn)
			var times []time.Duration
			for b.Loop() {
				times = append(times, initOnce(b, bootstrap))
			}
			b.ReportMetric(float64(percentile(times, 0.5).Microseconds())/1000, "init-p50-ms")
			size, zipped := armSize(b, fn)
			b.ReportMetric(float64(size)/(1<<20), "arm64-MiB")
			b.ReportMetric(float64(zipped)/(1<<20), "zip-MiB")
		})
	}
}

// lambdaFunctions lists the function packages that exist.
func lambdaFunctions() []string {
	var out []string
	for _, name := range []string{"tools", "approve", "graph"} {
		if _, err := os.Stat(filepath.Join("..", "..", "functions", name, "main.go")); err == nil {
			out = append(out, "github.com/filecontext-aws/filecontext/functions/"+name)
		}
	}
	return out
}

func initOnce(b *testing.B, bootstrap string) time.Duration {
	var once sync.Once
	first := make(chan time.Time, 1)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { first <- time.Now() })
		<-r.Context().Done() // hold the long poll until the process ends
	}))
	defer api.Close()
	cmd := exec.Command(bootstrap)
	cmd.Env = []string{
		"AWS_LAMBDA_RUNTIME_API=" + api.Listener.Addr().String(),
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=bench", "AWS_SECRET_ACCESS_KEY=bench",
		"FILECONTEXT_BUCKET=bench", "FILECONTEXT_SYSTEM_BUCKET=bench-system", "FILECONTEXT_APPROVALS_TABLE=bench-approvals",
		"AWS_LAMBDA_FUNCTION_NAME=bench", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512", "AWS_LAMBDA_FUNCTION_VERSION=1",
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	select {
	case t := <-first:
		return t.Sub(start)
	case <-time.After(5 * time.Second):
		b.Fatalf("no request for an invocation within 5 s: %s", stderr.String())
	}
	return 0
}

// armSize builds the function for linux/arm64 as it is deployed and returns
// the binary's size and the size of its zip as scripts/build-lambdas.sh
// makes it (scripts/zip-bootstrap.py: zlib's level 9, which packs these
// binaries about 100 KB smaller than Go's flate.BestCompression).
func armSize(b *testing.B, pkg string) (int64, int64) {
	dir := b.TempDir()
	out := filepath.Join(dir, "bootstrap")
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags", "-s -w", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, o)
	}
	zipped := filepath.Join(dir, "bootstrap.zip")
	if o, err := exec.Command("python3", "../../scripts/zip-bootstrap.py", out, zipped).CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, o)
	}
	bin, err := os.Stat(out)
	if err != nil {
		b.Fatal(err)
	}
	z, err := os.Stat(zipped)
	if err != nil {
		b.Fatal(err)
	}
	return bin.Size(), z.Size()
}
