// Package boltstore is the embedded approval store of the local server: one
// bbolt file under the server's state directory, so pending approvals
// survive a restart. Each method is one bbolt transaction, which makes the
// version check and the write of Update atomic. The file is opened for each
// transaction and closed after it, so several processes share one state
// folder (an MCP stdio server and `filecontext approvals`, say): bbolt's
// file lock serializes them, and a mutex does within a process.
package boltstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/filecontext-aws/filecontext/pkg/approval"
)

var (
	records = []byte("records")
	byState = []byte("by-status")
)

// Store is an approval.Store in a bbolt file.
type Store struct {
	path string
	mu   sync.Mutex
}

// lockWait is how long a transaction waits for another process holding
// the file.
const lockWait = 10 * time.Second

var _ approval.Store = (*Store)(nil)

// Open creates the store file if needed and checks that it can be opened.
func Open(path string) (*Store, error) {
	s := &Store{path: path}
	err := s.update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(records); err != nil {
			return err
		}
		_, err := tx.CreateBucketIfNotExists(byState)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("approvals store %s: %w", path, err)
	}
	return s, nil
}

// Close releases nothing: the file is closed after every transaction.
func (s *Store) Close() error { return nil }

func (s *Store) with(fn func(db *bolt.DB) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	db, err := bolt.Open(s.path, 0o600, &bolt.Options{Timeout: lockWait})
	if err != nil {
		return err
	}
	err = fn(db)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *Store) update(fn func(tx *bolt.Tx) error) error {
	return s.with(func(db *bolt.DB) error { return db.Update(fn) })
}

func (s *Store) view(fn func(tx *bolt.Tx) error) error {
	return s.with(func(db *bolt.DB) error { return db.View(fn) })
}

// indexKey orders records of one status by request time, then ID.
func indexKey(r *approval.Record) []byte {
	return []byte(string(r.Status) + "\x00" + r.RequestedAt.UTC().Format("2006-01-02T15:04:05.000000000Z") + "\x00" + r.ApprovalID)
}

// Create implements approval.Store.
func (s *Store) Create(ctx context.Context, r *approval.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(records)
		if b.Get([]byte(r.ApprovalID)) != nil {
			return approval.ErrExists
		}
		r.Version = 1
		return put(tx, r)
	})
}

func put(tx *bolt.Tx, r *approval.Record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := tx.Bucket(records).Put([]byte(r.ApprovalID), data); err != nil {
		return err
	}
	return tx.Bucket(byState).Put(indexKey(r), []byte(r.ApprovalID))
}

// Get implements approval.Store.
func (s *Store) Get(ctx context.Context, id string) (*approval.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var r *approval.Record
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		r, err = get(tx, id)
		return err
	})
	return r, err
}

func get(tx *bolt.Tx, id string) (*approval.Record, error) {
	data := tx.Bucket(records).Get([]byte(id))
	if data == nil {
		return nil, approval.ErrNotFound
	}
	var r approval.Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Update implements approval.Store.
func (s *Store) Update(ctx context.Context, r *approval.Record, expect int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.update(func(tx *bolt.Tx) error {
		cur, err := get(tx, r.ApprovalID)
		if err != nil {
			if err == approval.ErrNotFound {
				return approval.ErrConflict
			}
			return err
		}
		if cur.Version != expect {
			return approval.ErrConflict
		}
		if err := tx.Bucket(byState).Delete(indexKey(cur)); err != nil {
			return err
		}
		r.Version = expect + 1
		return put(tx, r)
	})
}

// List implements approval.Store. The token is the index key to resume
// after.
func (s *Store) List(ctx context.Context, status approval.Status, limit int, token string) ([]*approval.Record, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	prefix := []byte(string(status) + "\x00")
	var after []byte
	if token != "" {
		var err error
		if after, err = base64.RawURLEncoding.DecodeString(token); err != nil || !bytes.HasPrefix(after, prefix) {
			return nil, "", approval.ErrBadToken
		}
	}
	var out []*approval.Record
	next := ""
	err := s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(byState).Cursor()
		k, v := c.Seek(prefix)
		if after != nil {
			k, v = c.Seek(after)
			if bytes.Equal(k, after) {
				k, v = c.Next()
			}
		}
		for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if len(out) == limit {
				next = base64.RawURLEncoding.EncodeToString(indexKey(out[len(out)-1]))
				return nil
			}
			r, err := get(tx, string(v))
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	return out, next, err
}
