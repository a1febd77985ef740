//go:build integration

package s3store_test

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"path/filepath"
	"testing"

	"github.com/filecontext-aws/filecontext/internal/testenv"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
)

func TestConformance(t *testing.T) {
	for _, target := range testenv.S3Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			storetest.RunConformance(t, func(t *testing.T) fileops.Store {
				return s3store.New(target.Client, testenv.NewBucket(t, target.Client))
			}, capabilities(target))
		})
	}
}

// capabilities: moto models S3 keys exactly; versitygw stores objects as files
// in a posix tree, so it cannot hold a file and a directory of one name, and
// it reads a forged continuation token as a start-after key.
func capabilities(target testenv.S3Target) storetest.Capabilities {
	if target.DataDir == "" {
		return storetest.Capabilities{LiteralKeys: true, FileAndPrefix: true}
	}
	return storetest.Capabilities{LenientTokens: true, Outside: []string{target.DataDir, filepath.Dir(target.DataDir)}}
}

func TestOperations(t *testing.T) {
	for _, target := range testenv.S3Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			storetest.RunOperations(t, func(t *testing.T) fileops.Store {
				return s3store.New(target.Client, testenv.NewBucket(t, target.Client))
			}, capabilities(target))
		})
	}
}

// TestLargeObject uploads the 1 GiB object to versitygw (posix-backed, so
// ranged reads are file reads) and runs the large-object checks over S3.
func TestLargeObject(t *testing.T) {
	var target testenv.S3Target
	for _, tg := range testenv.S3Targets(t) {
		if tg.Name == "versitygw" {
			target = tg
		}
	}
	bucket := testenv.NewBucket(t, target.Client)
	start := time.Now()
	_, err := target.Client.PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: &bucket, Key: aws.String("big.bin"), Body: storetest.LargeReader(), ContentLength: aws.Int64(storetest.LargeSize),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("uploaded 1 GiB in %v", time.Since(start))
	storetest.RunLargeObject(t, s3store.New(target.Client, bucket))
}

// A HEAD answer has no body: a missing bucket must not look like a missing
// key, and a key the gateway refuses must say so.
func TestHeadExplainsItsFailures(t *testing.T) {
	ctx := context.Background()
	for _, target := range testenv.S3Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			missing := s3store.New(target.Client, "fc-no-such-bucket-for-head")
			_, err := missing.Head(ctx, "a.md")
			var se *fileops.StoreError
			if !errors.As(err, &se) || se.Code != "NoSuchBucket" {
				t.Errorf("Head in a missing bucket: %v", err)
			}
			s := s3store.New(target.Client, testenv.NewBucket(t, target.Client))
			if _, err := s.Head(ctx, "missing.md"); !errors.Is(err, fileops.ErrNotFound) {
				t.Errorf("Head of a missing key: %v", err)
			}
			if target.Name == "versitygw" { // posix: a segment over 255 bytes
				if _, err := s.Head(ctx, strings.Repeat("n", 300)); !errors.Is(err, fileops.ErrUnsupportedName) {
					t.Errorf("Head of a name the gateway cannot hold: %v", err)
				}
			}
		})
	}
}
