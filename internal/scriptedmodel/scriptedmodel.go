// Package scriptedmodel is an OpenAI-compatible chat completions server for
// tests: it plays back queued responses per scenario (text, one or several
// tool calls, errors), records every raw request, and counts matched,
// unmatched and exhausted requests. The scenario is the request's "model".
package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
)

// ToolCall is one tool call a scripted response makes.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text
}

// Response is one scripted answer: text, tool calls, or an HTTP error.
type Response struct {
	Text      string
	ToolCalls []ToolCall
	// Status, when set, answers with this HTTP status and an error body.
	Status  int
	Message string
}

// Stats count the requests.
type Stats struct {
	Matched   int // answered from a queue
	Unmatched int // for a scenario that has no queue
	Exhausted int // for a scenario whose queue is used up
}

// Server is the scripted model.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	queues   map[string][]Response
	requests map[string][]json.RawMessage
	stats    Stats
	next     int
}

// New starts a server on a free loopback port.
func New() *Server {
	s := &Server{queues: map[string][]Response{}, requests: map[string][]json.RawMessage{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is what an OpenAI client takes as its base URL.
func (s *Server) BaseURL() string { return s.URL + "/v1/" }

// Queue appends responses to a scenario.
func (s *Server) Queue(scenario string, rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queues[scenario] = append(s.queues[scenario], rs...)
}

// Requests returns the raw requests a scenario received, in order.
func (s *Server) Requests(scenario string) []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.requests[scenario]...)
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model string `json:"model"`
	}
	json.Unmarshal(body, &req)
	s.mu.Lock()
	s.requests[req.Model] = append(s.requests[req.Model], json.RawMessage(body))
	queue, known := s.queues[req.Model]
	var resp Response
	switch {
	case !known:
		s.stats.Unmatched++
	case len(queue) == 0:
		s.stats.Exhausted++
	default:
		s.stats.Matched++
		resp = queue[0]
		s.queues[req.Model] = queue[1:]
	}
	s.next++
	id := s.next
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if !known || (len(queue) == 0 && resp.Status == 0 && resp.Text == "" && resp.ToolCalls == nil) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":"no scripted response for scenario %q","type":"invalid_request_error"}}`, req.Model)
		return
	}
	if resp.Status != 0 {
		w.WriteHeader(resp.Status)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": resp.Message, "type": "server_error"}})
		return
	}
	msg := map[string]any{"role": "assistant", "content": resp.Text}
	finish := "stop"
	if len(resp.ToolCalls) > 0 {
		var calls []map[string]any
		for _, c := range resp.ToolCalls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
		}
		msg["tool_calls"] = calls
		msg["content"] = nil
		finish = "tool_calls"
	}
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", id), "object": "chat.completion", "created": 1764500000, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}
