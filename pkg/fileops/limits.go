package fileops

import (
	"fmt"
	"time"
)

// Limits are every configured bound of the file operations. The zero value
// is not valid; start from DefaultLimits. JSON names are the names a
// limit_exceeded error reports in details.limit.
type Limits struct {
	MaximumFullReadBytes    int64 `json:"maximumFullReadBytes"`
	DefaultLineCount        int   `json:"defaultLineCount"`
	MaximumLineCount        int   `json:"maximumLineCount"`
	MaximumWindowBytes      int   `json:"maximumWindowBytes"`
	MaximumListEntries      int   `json:"maximumListEntries"`
	MaximumGrepFilesScanned int   `json:"maximumGrepFilesScanned"`
	MaximumGrepFilesMatched int   `json:"maximumGrepFilesMatched"`
	MaximumGrepLinesPerFile int   `json:"maximumGrepLinesPerFile"`
	MaximumGrepFileBytes    int64 `json:"maximumGrepFileBytes"`
	GrepConcurrency         int   `json:"grepConcurrency"`
	// GrepWindowBytes bounds the bytes of files being fetched and matched
	// at once, whatever the concurrency.
	GrepWindowBytes          int64         `json:"grepWindowBytes"`
	RegexTimeout             time.Duration `json:"regexTimeout"`
	MaximumWriteBytes        int64         `json:"maximumWriteBytes"`
	MaximumDownloadBytes     int           `json:"maximumDownloadBytes"`
	DefaultDownloadBytes     int           `json:"defaultDownloadBytes"`
	MaximumGrepPatternLength int           `json:"maximumGrepPatternLength"`
}

// DefaultLimits returns the contract's defaults.
func DefaultLimits() Limits {
	return Limits{
		MaximumFullReadBytes:    1 << 20,
		DefaultLineCount:        200,
		MaximumLineCount:        1000,
		MaximumWindowBytes:      256 << 10,
		MaximumListEntries:      1000,
		MaximumGrepFilesScanned: 500,
		MaximumGrepFilesMatched: 100,
		MaximumGrepLinesPerFile: 20,
		MaximumGrepFileBytes:    4 << 20,
		// Many fetches in flight hide S3's first-byte latency (the S3
		// guide's "scale storage connections horizontally"); the window,
		// not the concurrency, bounds the memory.
		GrepConcurrency:          128,
		GrepWindowBytes:          32 << 20,
		RegexTimeout:             10 * time.Second,
		MaximumWriteBytes:        1 << 20,
		MaximumDownloadBytes:     256 << 10,
		DefaultDownloadBytes:     256 << 10,
		MaximumGrepPatternLength: 1000,
	}
}

// Validate reports the first limit that is not positive, or a default above
// its maximum.
func (l Limits) Validate() error {
	for _, c := range []struct {
		name string
		v    int64
	}{
		{"maximumFullReadBytes", l.MaximumFullReadBytes},
		{"defaultLineCount", int64(l.DefaultLineCount)},
		{"maximumLineCount", int64(l.MaximumLineCount)},
		{"maximumWindowBytes", int64(l.MaximumWindowBytes)},
		{"maximumListEntries", int64(l.MaximumListEntries)},
		{"maximumGrepFilesScanned", int64(l.MaximumGrepFilesScanned)},
		{"maximumGrepFilesMatched", int64(l.MaximumGrepFilesMatched)},
		{"maximumGrepLinesPerFile", int64(l.MaximumGrepLinesPerFile)},
		{"maximumGrepFileBytes", l.MaximumGrepFileBytes},
		{"grepConcurrency", int64(l.GrepConcurrency)},
		{"grepWindowBytes", l.GrepWindowBytes},
		{"regexTimeout", int64(l.RegexTimeout)},
		{"maximumWriteBytes", l.MaximumWriteBytes},
		{"maximumDownloadBytes", int64(l.MaximumDownloadBytes)},
		{"defaultDownloadBytes", int64(l.DefaultDownloadBytes)},
		{"maximumGrepPatternLength", int64(l.MaximumGrepPatternLength)},
	} {
		if c.v <= 0 {
			return fmt.Errorf("limit %s must be positive, got %d", c.name, c.v)
		}
	}
	if l.DefaultLineCount > l.MaximumLineCount {
		return fmt.Errorf("limit defaultLineCount (%d) is above maximumLineCount (%d)", l.DefaultLineCount, l.MaximumLineCount)
	}
	if l.DefaultDownloadBytes > l.MaximumDownloadBytes {
		return fmt.Errorf("limit defaultDownloadBytes (%d) is above maximumDownloadBytes (%d)", l.DefaultDownloadBytes, l.MaximumDownloadBytes)
	}
	return nil
}
