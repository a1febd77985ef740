// Package testenv connects tests to the local AWS emulators that
// localstack/emulators.sh starts. The emulators announce themselves through
// FILECONTEXT_TEST_* variables; a test that needs one and does not find it
// fails: it never skips.
package testenv

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
)

// S3Target is one S3 emulator.
type S3Target struct {
	Name   string
	Client *s3.Client
	// DataDir is where a posix-backed emulator keeps bucket contents, or "".
	DataDir string
}

// S3Targets returns a client for every S3 emulator: moto server and
// versitygw. It fails the test when either is not announced.
func S3Targets(t testing.TB) []S3Target {
	t.Helper()
	return []S3Target{
		{Name: "moto", Client: NewS3Client(require(t, "FILECONTEXT_TEST_MOTO_URL"), "test", "test")},
		{Name: "versitygw", Client: NewS3Client(require(t, "FILECONTEXT_TEST_VERSITYGW_URL"),
			require(t, "FILECONTEXT_TEST_VERSITYGW_ACCESS_KEY"), require(t, "FILECONTEXT_TEST_VERSITYGW_SECRET_KEY")),
			DataDir: os.Getenv("FILECONTEXT_TEST_VERSITYGW_DATA")},
	}
}

func require(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set: start the emulators with localstack/emulators.sh start (the README's test command does)", name)
	}
	return v
}

// NewS3Client returns a path-style S3 client for an emulator endpoint.
func NewS3Client(endpoint, access, secret string) *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(access, secret, ""),
		HTTPClient:   s3store.NewHTTPClient(),
	})
}

// NewBucket creates a bucket with a unique name and removes it with its
// objects when the test ends.
func NewBucket(t testing.TB, c *s3.Client) string {
	t.Helper()
	name := "fc-" + strings.ToLower(rand.Text()[:20])
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &name}); err != nil {
		t.Fatalf("creating bucket: %v", err)
	}
	t.Cleanup(func() { EmptyAndDelete(c, name) })
	return name
}

// EmptyAndDelete deletes every object of a bucket, then the bucket.
func EmptyAndDelete(c *s3.Client, bucket string) error {
	ctx := context.Background()
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: &bucket})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, o := range page.Contents {
			c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: o.Key})
		}
	}
	_, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &bucket})
	if err != nil {
		return fmt.Errorf("deleting bucket %s: %w", bucket, err)
	}
	return nil
}

// UploadDir copies a directory tree into a bucket under prefix.
func UploadDir(t testing.TB, c *s3.Client, bucket, prefix, dir string) {
	t.Helper()
	storetest.LoadDir(t, s3store.New(c, bucket), prefix, dir)
}

// Versitygw returns the versitygw target.
func Versitygw(t testing.TB) S3Target {
	t.Helper()
	for _, tg := range S3Targets(t) {
		if tg.Name == "versitygw" {
			return tg
		}
	}
	t.Fatal("no versitygw target")
	return S3Target{}
}

// LambdaEnv is the environment a function needs to reach the versitygw
// emulator as its data store.
func LambdaEnv(t testing.TB, bucket, prefix string) map[string]string {
	t.Helper()
	return map[string]string{
		"AWS_REGION":                "us-east-1",
		"AWS_ACCESS_KEY_ID":         require(t, "FILECONTEXT_TEST_VERSITYGW_ACCESS_KEY"),
		"AWS_SECRET_ACCESS_KEY":     require(t, "FILECONTEXT_TEST_VERSITYGW_SECRET_KEY"),
		"AWS_ENDPOINT_URL_S3":       require(t, "FILECONTEXT_TEST_VERSITYGW_URL"),
		"FILECONTEXT_S3_PATH_STYLE": "true",
		"FILECONTEXT_BUCKET":        bucket,
		"FILECONTEXT_ROOT_PREFIX":   prefix,
		"FILECONTEXT_LOG_LEVEL":     "info",
	}
}

// ResetDir makes the keys under prefix exactly the files of dir.
func ResetDir(t testing.TB, c *s3.Client, bucket, prefix, dir string) {
	t.Helper()
	ctx := context.Background()
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: o.Key}); err != nil {
				t.Fatal(err)
			}
		}
	}
	UploadDir(t, c, bucket, prefix, dir)
}

// DynamoTarget is one DynamoDB emulator.
type DynamoTarget struct {
	Name   string
	Client *dynamodb.Client
}

// DynamoTargets returns a client for every DynamoDB emulator: moto server
// and dynalite. It fails the test when either is not announced.
func DynamoTargets(t testing.TB) []DynamoTarget {
	t.Helper()
	return []DynamoTarget{
		{Name: "moto", Client: NewDynamoClient(require(t, "FILECONTEXT_TEST_MOTO_URL"))},
		{Name: "dynalite", Client: NewDynamoClient(require(t, "FILECONTEXT_TEST_DYNALITE_URL"))},
	}
}

// NewDynamoClient returns a DynamoDB client for an emulator endpoint.
func NewDynamoClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
}

// TableName returns a unique table name.
func TableName() string { return "fc-approvals-" + strings.ToLower(rand.Text()[:12]) }
