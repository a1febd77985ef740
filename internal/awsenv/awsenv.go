// Package awsenv builds AWS client settings from the environment Lambda
// provides: region, the execution role's credentials and, for emulators,
// the SDK's endpoint variables. Inside Lambda this is exactly what the
// default configuration chain resolves to (its first source), without
// linking the chain's other sources (SSO, STS, IMDS, profiles), which would
// add megabytes to every bootstrap and time to every cold start. The local
// CLI uses the full chain.
package awsenv

import (
	"errors"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Settings are the resolved region, credentials and endpoint overrides.
type Settings struct {
	Region      string
	Credentials aws.CredentialsProvider
	// Endpoint returns the override for a service ("S3", "DYNAMODB"):
	// AWS_ENDPOINT_URL_<SERVICE>, else AWS_ENDPOINT_URL, else nil.
	Endpoint func(service string) *string
}

// Load reads the settings from getenv.
func Load(getenv func(string) string) (Settings, error) {
	region := getenv("AWS_REGION")
	if region == "" {
		region = getenv("AWS_DEFAULT_REGION")
	}
	if region == "" {
		return Settings{}, errors.New("AWS_REGION is not set")
	}
	key, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	if key == "" || secret == "" {
		return Settings{}, errors.New("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set (Lambda sets them from the execution role)")
	}
	return Settings{
		Region:      region,
		Credentials: credentials.NewStaticCredentialsProvider(key, secret, getenv("AWS_SESSION_TOKEN")),
		Endpoint: func(service string) *string {
			if v := getenv("AWS_ENDPOINT_URL_" + service); v != "" {
				return aws.String(v)
			}
			if v := getenv("AWS_ENDPOINT_URL"); v != "" {
				return aws.String(v)
			}
			return nil
		},
	}, nil
}

// FromOS reads the settings from the process environment.
func FromOS() (Settings, error) { return Load(os.Getenv) }
