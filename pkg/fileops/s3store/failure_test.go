package s3store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
)

// Failures without an S3 error code (no endpoint, no credentials) get a
// code that names the likely cause, and the caller's message a hint that
// names no bucket and no endpoint.
func TestFailuresNameTheirLikelyCause(t *testing.T) {
	static := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"}, nil
	})
	noCreds := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{}, errors.New("no credentials in this test")
	})
	for _, tc := range []struct {
		endpoint string
		creds    aws.CredentialsProvider
		code     string
	}{
		{"http://127.0.0.1:1", static, "EndpointUnreachable"},
		{"http://filecontext-no-such-host.invalid", static, "EndpointNotFound"},
		{"http://127.0.0.1:1", noCreds, "NoCredentials"},
	} {
		client := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(tc.endpoint), UsePathStyle: true, Credentials: tc.creds, RetryMaxAttempts: 1})
		store := s3store.New(client, "secret-bucket-name")
		_, err := store.Get(context.Background(), "notes.md", fileops.GetOptions{Length: -1})
		var se *fileops.StoreError
		if !errors.As(err, &se) || se.Code != tc.code {
			t.Errorf("%s: %v, want %s", tc.endpoint, err, tc.code)
			continue
		}
		fe := fault.As(fileops.MapStoreError("read", "notes.md", err))
		if fe.Code != fault.StorageError || !strings.Contains(fe.Message, tc.code) || !strings.Contains(fe.Message, "AWS_") ||
			strings.Contains(fe.Message, "secret-bucket-name") || strings.Contains(fe.Message, "127.0.0.1") {
			t.Errorf("%s: the caller reads %q", tc.code, fe.Message)
		}
	}
}
