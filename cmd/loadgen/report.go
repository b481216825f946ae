package main

import (
	"encoding/json"
	"io"
	"time"
)

// Report is what a run measured: printed as a table, written with -json
// (its schema, documented in docs/loadgen.md, is a contract: fields are added,
// never renamed or removed), drawn with -html, compared with -compare.
//
// Counts are of requests (a batch of N counts N; notifications are
// counted apart, they have no answer). Latencies are in microseconds:
// from the send (closed loop) or from the intended send time (open loop,
// -rate: coordinated omission corrected, as wrk2 does) to the answer.
type Report struct {
	Target string    `json:"target"`
	Mode   string    `json:"mode"` // "closed" (-depth) or "open" (-rate)
	Conns  int       `json:"connections"`
	Depth  int       `json:"depth,omitempty"`
	Rate   string    `json:"rate,omitempty"`
	Call   string    `json:"call"` // what was called: a method, a tool, a mix file
	Start  time.Time `json:"start"`
	// DurationS is the measured time in seconds, from the first send to
	// the last answer (or the end of the run).
	DurationS float64 `json:"duration_s"`

	Requests      int64 `json:"requests"`      // requests sent, each expecting one answer
	Notifications int64 `json:"notifications"` // notifications sent
	Responses     int64 `json:"responses"`     // answers matched to a request sent
	OK            int64 `json:"ok"`            // answers with a result (and the expected one with -expect)
	// Errors counts everything that went wrong: error answers, transport
	// errors, -expect mismatches, lost requests, duplicate and unknown
	// answers (each is also counted in its own field).
	Errors     int64            `json:"errors"`
	ErrorCodes map[string]int64 `json:"error_codes"` // error answers by JSON-RPC code ("-32601": 3)
	// ErrorSamples holds the first error answer of each code, as sent.
	ErrorSamples    map[string]string `json:"error_samples,omitempty"`
	TransportErrors int64             `json:"transport_errors"` // requests failed by the transport (refused, reset, HTTP status)
	Mismatches      int64             `json:"mismatches"`       // results that differ from -expect
	Lost            int64             `json:"lost"`             // requests never answered
	Duplicates      int64             `json:"duplicates"`       // answers to a request answered already
	Unknown         int64             `json:"unknown"`          // answers with an id never sent

	ThroughputRPS float64 `json:"throughput_rps"` // answers per second
	BytesSent     int64   `json:"bytes_sent"`
	BytesReceived int64   `json:"bytes_received"`

	LatencyUS Latency `json:"latency_us"`
	// Percentiles is the latency distribution: the latency under which
	// each percentile of the answers came, from 0 to 100.
	Percentiles []Percentile `json:"percentiles"`
	// Timeline is the run second by second.
	Timeline []Interval `json:"timeline"`

	CPU      CPU      `json:"cpu"`
	Warnings []string `json:"warnings,omitempty"`
	// Thresholds crossed (-max-p99, -max-errors): the exit status is 1.
	Failed []string `json:"failed,omitempty"`

	// Targets is the breakdown of a run of several targets (Target then
	// lists them, joined by commas), one per target in the order given;
	// absent for one target. Their counts add up to the totals above.
	Targets []TargetReport `json:"targets,omitempty"`
}

// TargetReport is one target's part of a run of several: what its
// connections sent and got back. Its members mean what the Report's of
// the same names mean, for that target alone; ThroughputRPS is over the
// whole run's DurationS.
type TargetReport struct {
	Target string `json:"target"`
	// Conns is how many of the run's connections went to it (connection i
	// to target i mod n); FailedConns how many of them could not be
	// opened: each failed the requests of its first write (transport
	// errors) and sent no more.
	Conns       int `json:"connections"`
	FailedConns int `json:"failed_connections,omitempty"`

	Requests        int64            `json:"requests"`
	Notifications   int64            `json:"notifications"`
	Responses       int64            `json:"responses"`
	OK              int64            `json:"ok"`
	Errors          int64            `json:"errors"`
	ErrorCodes      map[string]int64 `json:"error_codes"`
	TransportErrors int64            `json:"transport_errors"`
	Mismatches      int64            `json:"mismatches"`
	Lost            int64            `json:"lost"`
	Duplicates      int64            `json:"duplicates"`
	Unknown         int64            `json:"unknown"`

	ThroughputRPS float64 `json:"throughput_rps"`
	BytesSent     int64   `json:"bytes_sent"`
	BytesReceived int64   `json:"bytes_received"`
	LatencyUS     Latency `json:"latency_us"`
}

// Latency sums up a latency distribution, in microseconds.
type Latency struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// Percentile is one point of the latency distribution.
type Percentile struct {
	Percentile float64 `json:"percentile"` // 0..100
	US         float64 `json:"us"`
}

// Interval is one second (or the last, shorter part) of the run.
type Interval struct {
	TS        float64 `json:"t_s"`       // its end, in seconds from the start
	Responses int64   `json:"responses"` // answers in it
	Errors    int64   `json:"errors"`    // error answers and transport errors in it
	RPS       float64 `json:"rps"`       // answers per second in it
	P50US     float64 `json:"p50_us"`    // latencies of its answers
	P99US     float64 `json:"p99_us"`
	MaxUS     float64 `json:"max_us"`
}

// CPU is the generator's own CPU use: when it nears what the machine has,
// the generator and not the server may be what was measured.
type CPU struct {
	UserS   float64 `json:"user_s"`
	SystemS float64 `json:"system_s"`
	// Cores is the CPU time over the wall time: 1.0 is one core busy all
	// along.
	Cores float64 `json:"cores"`
	// Machine is how many cores the machine has (runtime.NumCPU).
	Machine int `json:"machine_cores"`
	// Procs is how many processors (GOMAXPROCS) loadgen ran on: -procs,
	// or its choice for the target.
	Procs int `json:"procs"`
	// InProcess says the server ran in this process: its CPU is counted
	// here too.
	InProcess bool `json:"in_process,omitempty"`
	// PerCallUS is loadgen's CPU time (user and system) per answer, in
	// microseconds (0 when none came). With InProcess it includes the
	// server's, which cannot be told apart from it.
	PerCallUS float64 `json:"per_call_us"`
	// ServerPerCallUS is, when loadgen started the servers itself (stdio
	// targets), their CPU time (user and system, over their whole lives,
	// start-up included) per answer, in microseconds; absent otherwise.
	ServerPerCallUS float64 `json:"server_per_call_us,omitempty"`
}

// perCall is CPU time d spread over n answers, in microseconds (0 when
// there are none).
func perCall(d time.Duration, n int64) float64 {
	if n <= 0 {
		return 0
	}
	return float64(d) / float64(time.Microsecond) / float64(n)
}

// writeJSON writes the report as indented JSON.
func writeJSON(w io.Writer, r *Report) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}
