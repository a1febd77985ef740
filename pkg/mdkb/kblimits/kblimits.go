// Package kblimits holds the limits of the Markdown knowledge graph, apart
// from package mdkb so that configuration can name them without linking the
// Markdown and JSON-LD libraries.
package kblimits

// Limits bound a graph call.
type Limits struct {
	// MaximumFiles and MaximumTotalBytes cap the documents of one graph;
	// over either, the most recently modified files are used.
	MaximumFiles          int   `json:"maximumGraphFiles"`
	MaximumTotalBytes     int64 `json:"maximumGraphBytes"`
	MaximumFileBytes      int64 `json:"maximumGraphFileBytes"`
	DefaultResults        int   `json:"defaultGraphResults"`
	MaximumResults        int   `json:"maximumGraphResults"`
	MaximumExportBytes    int   `json:"maximumExportBytes"`
	FetchConcurrency      int   `json:"graphFetchConcurrency"`
	MaximumQueryBytes     int   `json:"maximumGraphQueryBytes"`
	MaximumSnapshotsSwept int   `json:"maximumSnapshotsSwept"`
}

// Default returns the contract's limits.
func Default() Limits {
	return Limits{MaximumFiles: 20000, MaximumTotalBytes: 64 << 20, MaximumFileBytes: 1 << 20, DefaultResults: 10, MaximumResults: 100,
		MaximumExportBytes: 200000, FetchConcurrency: 128, MaximumQueryBytes: 1000, MaximumSnapshotsSwept: 100}
}
