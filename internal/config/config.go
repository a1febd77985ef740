// Package config reads the configuration of every entry point from
// environment variables, in one place, at start-up. Load reports every bad
// value at once with the variable's name, so a misconfigured function stops
// before it serves anything.
package config

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/mdkb/kblimits"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

// Config is the validated configuration.
type Config struct {
	Bucket               string        // FILECONTEXT_BUCKET: the data bucket
	SystemBucket         string        // FILECONTEXT_SYSTEM_BUCKET: staged content and snapshots
	ApprovalsTable       string        // FILECONTEXT_APPROVALS_TABLE
	Root                 pathsafe.Root // FILECONTEXT_ROOT_PREFIX
	WriteTools           bool          // FILECONTEXT_WRITE_TOOLS=enabled|disabled (default disabled)
	ApprovalOff          bool          // FILECONTEXT_APPROVAL=required|off (default required)
	AllowSelfApprove     bool          // FILECONTEXT_ALLOW_SELF_APPROVAL=true|false (default false)
	ApprovalTTL          time.Duration // FILECONTEXT_APPROVAL_TTL (default 24h)
	ApprovalLease        time.Duration // FILECONTEXT_APPROVAL_LEASE (default 5m): how long an approve in progress holds its claim
	ApprovalRetention    time.Duration // FILECONTEXT_APPROVAL_RETENTION (default 2160h, 90 days): how long decided records are kept
	OperationTimeout     time.Duration // FILECONTEXT_OPERATION_TIMEOUT (default unset)
	ResponseMargin       time.Duration // FILECONTEXT_RESPONSE_MARGIN (default 500ms)
	BedrockResponseBytes int           // FILECONTEXT_BEDROCK_RESPONSE_BYTES (default 24000): the whole serialized response
	MaxRequestBytes      int           // FILECONTEXT_MAX_REQUEST_BYTES (default 6 MiB)
	S3PathStyle          bool          // FILECONTEXT_S3_PATH_STYLE=true for emulators
	LogLevel             string        // FILECONTEXT_LOG_LEVEL=debug|info|warn|error (default info)
	ApprovalEvents       string        // FILECONTEXT_APPROVAL_EVENTS=off|eventbridge (default off): where approval transitions are announced
	EventBus             string        // FILECONTEXT_EVENT_BUS: the EventBridge bus (default: the account's default bus)
	Limits               fileops.Limits
	GraphLimits          kblimits.Limits
}

// Defaults returns the configuration with every default and no bucket.
func Defaults() Config {
	return Config{
		ApprovalTTL:          24 * time.Hour,
		ApprovalLease:        5 * time.Minute,
		ApprovalRetention:    90 * 24 * time.Hour,
		ResponseMargin:       500 * time.Millisecond,
		BedrockResponseBytes: 24000,
		MaxRequestBytes:      6 << 20,
		LogLevel:             "info",
		Limits:               fileops.DefaultLimits(),
		GraphLimits:          kblimits.Default(),
	}
}

// Requirement says which variables an entry point cannot start without.
type Requirement int

const (
	NeedBucket Requirement = 1 << iota
	NeedSystemBucket
	NeedApprovalsTable
)

// Load reads and validates the configuration from getenv.
func Load(getenv func(string) string, need Requirement) (Config, error) {
	c := Defaults()
	var errs []error
	bad := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...)))
	}
	c.Bucket = strings.TrimSpace(getenv("FILECONTEXT_BUCKET"))
	c.SystemBucket = strings.TrimSpace(getenv("FILECONTEXT_SYSTEM_BUCKET"))
	c.ApprovalsTable = strings.TrimSpace(getenv("FILECONTEXT_APPROVALS_TABLE"))
	if need&NeedBucket != 0 && c.Bucket == "" {
		bad("FILECONTEXT_BUCKET", "must name the data bucket")
	}
	if need&NeedSystemBucket != 0 && c.SystemBucket == "" {
		bad("FILECONTEXT_SYSTEM_BUCKET", "must name the system bucket")
	}
	if need&NeedApprovalsTable != 0 && c.ApprovalsTable == "" {
		bad("FILECONTEXT_APPROVALS_TABLE", "must name the approvals table")
	}
	if root, err := pathsafe.NewRoot(getenv("FILECONTEXT_ROOT_PREFIX")); err != nil {
		bad("FILECONTEXT_ROOT_PREFIX", "%v", err)
	} else {
		c.Root = root
	}
	choice := func(name, def string, allowed ...string) string {
		v := strings.ToLower(strings.TrimSpace(getenv(name)))
		if v == "" {
			return def
		}
		for _, a := range allowed {
			if v == a {
				return v
			}
		}
		bad(name, "must be one of %s, got %q", strings.Join(allowed, ", "), v)
		return def
	}
	c.WriteTools = choice("FILECONTEXT_WRITE_TOOLS", "disabled", "enabled", "disabled") == "enabled"
	c.ApprovalOff = choice("FILECONTEXT_APPROVAL", "required", "required", "off") == "off"
	c.AllowSelfApprove = choice("FILECONTEXT_ALLOW_SELF_APPROVAL", "false", "true", "false") == "true"
	c.S3PathStyle = choice("FILECONTEXT_S3_PATH_STYLE", "false", "true", "false") == "true"
	c.LogLevel = choice("FILECONTEXT_LOG_LEVEL", "info", "debug", "info", "warn", "error")
	c.ApprovalEvents = choice("FILECONTEXT_APPROVAL_EVENTS", "off", "off", "eventbridge")
	c.EventBus = strings.TrimSpace(getenv("FILECONTEXT_EVENT_BUS"))
	duration := func(name string, dst *time.Duration, allowZero bool) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d == 0 && !allowZero {
			bad(name, "must be a positive duration such as 30s or 500ms, got %q", v)
			return
		}
		*dst = d
	}
	duration("FILECONTEXT_OPERATION_TIMEOUT", &c.OperationTimeout, false)
	duration("FILECONTEXT_RESPONSE_MARGIN", &c.ResponseMargin, true)
	duration("FILECONTEXT_APPROVAL_TTL", &c.ApprovalTTL, false)
	duration("FILECONTEXT_APPROVAL_LEASE", &c.ApprovalLease, false)
	duration("FILECONTEXT_APPROVAL_RETENTION", &c.ApprovalRetention, false)
	positive := func(name string, dst *int) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			bad(name, "must be a positive whole number, got %q", v)
			return
		}
		*dst = n
	}
	positive("FILECONTEXT_BEDROCK_RESPONSE_BYTES", &c.BedrockResponseBytes)
	positive("FILECONTEXT_MAX_REQUEST_BYTES", &c.MaxRequestBytes)
	if c.BedrockResponseBytes < 1024 {
		bad("FILECONTEXT_BEDROCK_RESPONSE_BYTES", "must be at least 1024, got %d", c.BedrockResponseBytes)
	}

	// Every limit has a variable named after its JSON name:
	// maximumFullReadBytes -> FILECONTEXT_MAXIMUM_FULL_READ_BYTES.
	for _, lv := range []reflect.Value{reflect.ValueOf(&c.Limits).Elem(), reflect.ValueOf(&c.GraphLimits).Elem()} {
		readLimits(getenv, lv, bad)
	}
	if err := c.Limits.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("configuration: %w", errors.Join(errs...))
	}
	return c, nil
}

// readLimits sets the fields of a limits struct from their variables.
func readLimits(getenv func(string) string, lv reflect.Value, bad func(name, format string, args ...any)) {
	lt := lv.Type()
	for i := range lt.NumField() {
		f := lt.Field(i)
		name := LimitVariable(f.Tag.Get("json"))
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			continue
		}
		field := lv.Field(i)
		if f.Type == reflect.TypeOf(time.Duration(0)) {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				bad(name, "must be a positive duration such as 10s, got %q", v)
				continue
			}
			field.SetInt(int64(d))
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			bad(name, "must be a positive whole number, got %q", v)
			continue
		}
		field.SetInt(n)
	}
}

// LimitVariable returns the environment variable of a limit's JSON name.
func LimitVariable(jsonName string) string {
	var b strings.Builder
	b.WriteString("FILECONTEXT_")
	for i, r := range jsonName {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}
