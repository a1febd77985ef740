//go:build integration

package main

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/filecontext-aws/filecontext/internal/testenv"
)

// motoEnv is the environment `serve --bucket` needs to reach moto server.
func motoEnv(t *testing.T) []string {
	url := os.Getenv("FILECONTEXT_TEST_MOTO_URL")
	if url == "" {
		t.Fatal("FILECONTEXT_TEST_MOTO_URL is not set: start the emulators with localstack/emulators.sh start")
	}
	return []string{"AWS_ENDPOINT_URL=" + url, "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_REGION=us-east-1",
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "FILECONTEXT_S3_PATH_STYLE=true"}
}

// On S3, "--prefix team" and "--prefix team/" are one root and share their
// default state folder, so an approval parked under one spelling is listed
// under the other.
func TestBucketPrefixSpellingsShareTheirState(t *testing.T) {
	bin := buildCLI(t)
	client := testenv.NewS3Client(os.Getenv("FILECONTEXT_TEST_MOTO_URL"), "test", "test")
	bucket := testenv.NewBucket(t, client)
	if _, err := client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("team/plan.md"), Body: strings.NewReader("draft\n")}); err != nil {
		t.Fatal(err)
	}
	parkThenListUnderTheOtherSpelling(t, bin, append(motoEnv(t), "XDG_STATE_HOME="+t.TempDir()), "--bucket", bucket)
}

// Against a bucket that does not exist, every tool answers 502
// storage_error, delete and info included (a HEAD answer has no error code).
func TestMissingBucketIsAStorageErrorForEveryTool(t *testing.T) {
	bin := buildCLI(t)
	url, _ := startServerEnv(t, bin, motoEnv(t), "--bucket", "fc-no-such-bucket-here", "--state", t.TempDir(), "--write-tools", "enabled", "--approval", "off")
	for _, tc := range []struct{ tool, body string }{
		{"file_access_read", `{"fileName":"a.md"}`},
		{"file_access_delete", `{"fileName":"a.md"}`},
		{"file_access_write", `{"fileName":"a.md","content":"x"}`},
		{"file_access_replace", `{"fileName":"a.md","oldString":"a","newString":"b"}`},
		{"file_access_ls", `{}`},
		{"file_access_grep", `{"regexPattern":"x"}`},
	} {
		status, m, _ := post(t, url, "/tools/"+tc.tool, []byte(tc.body))
		code, msg, _ := errorOf(m)
		if status != 502 || code != "storage_error" || strings.Contains(msg, "fc-no-such-bucket-here") {
			t.Errorf("%s = %d %v", tc.tool, status, m)
		}
	}
	status, m, _ := post(t, url, "/tools/file_context_info", []byte(`{"path":"a.md"}`))
	if code, _, _ := errorOf(m); status != 502 || code != "storage_error" {
		t.Errorf("info = %d %v", status, m)
	}
}

// s3Backing reads the served bucket directly, beside the server.
type s3Backing struct {
	client *s3.Client
	bucket string
}

func (b s3Backing) Content(t *testing.T, path string) (string, bool) {
	out, err := b.client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &b.bucket, Key: aws.String("prop/" + path)})
	if err != nil {
		var nsk *types.NoSuchKey
		if errors.As(err, &nsk) {
			return "", false
		}
		t.Fatalf("reading %s beside the server: %v", path, err)
	}
	defer out.Body.Close()
	body, _ := io.ReadAll(out.Body)
	return string(body), true
}

// The random calls of the directory store's property test, against the
// local server over each S3 emulator.
func TestRandomCallsOnS3(t *testing.T) {
	bin := buildCLI(t)
	for _, target := range testenv.S3Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			bucket := testenv.NewBucket(t, target.Client)
			env := motoEnv(t)
			if target.Name == "versitygw" {
				env = []string{"AWS_ENDPOINT_URL=" + os.Getenv("FILECONTEXT_TEST_VERSITYGW_URL"),
					"AWS_ACCESS_KEY_ID=" + os.Getenv("FILECONTEXT_TEST_VERSITYGW_ACCESS_KEY"),
					"AWS_SECRET_ACCESS_KEY=" + os.Getenv("FILECONTEXT_TEST_VERSITYGW_SECRET_KEY"),
					"AWS_REGION=us-east-1", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "FILECONTEXT_S3_PATH_STYLE=true"}
			}
			url, cmd := startServerEnv(t, bin, env, "--bucket", bucket, "--prefix", "prop", "--state", t.TempDir(),
				"--write-tools", "enabled", "--approval", "off")
			propertyRun(t, url, cmd.Process.Pid, s3Backing{target.Client, bucket}, 500, 20261201)
		})
	}
}
