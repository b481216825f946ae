package mcp

// LoggingLevel is the severity of a log message (RFC 5424's levels).
type LoggingLevel string

// Logging levels, least severe first.
const (
	LevelDebug     LoggingLevel = "debug"
	LevelInfo      LoggingLevel = "info"
	LevelNotice    LoggingLevel = "notice"
	LevelWarning   LoggingLevel = "warning"
	LevelError     LoggingLevel = "error"
	LevelCritical  LoggingLevel = "critical"
	LevelAlert     LoggingLevel = "alert"
	LevelEmergency LoggingLevel = "emergency"
)

// severity orders the levels; 0 is not a level.
func (l LoggingLevel) severity() int32 {
	switch l {
	case LevelDebug:
		return 1
	case LevelInfo:
		return 2
	case LevelNotice:
		return 3
	case LevelWarning:
		return 4
	case LevelError:
		return 5
	case LevelCritical:
		return 6
	case LevelAlert:
		return 7
	case LevelEmergency:
		return 8
	}
	return 0
}

// levels are the levels by severity.
var levels = [...]LoggingLevel{"", LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency}

// levelOfSeverity is the inverse of severity ("" for 0).
func levelOfSeverity(sev int32) LoggingLevel {
	if sev < 0 || int(sev) >= len(levels) {
		return ""
	}
	return levels[sev]
}

// Valid reports whether l is one of the eight levels.
func (l LoggingLevel) Valid() bool { return l.severity() > 0 }

// SetLevelParams are the params of logging/setLevel.
type SetLevelParams struct {
	Meta  Meta         `json:"_meta,omitempty"`
	Level LoggingLevel `json:"level"`
}

// LoggingMessageParams are the params of notifications/message.
type LoggingMessageParams struct {
	Meta   Meta         `json:"_meta,omitempty"`
	Level  LoggingLevel `json:"level"`
	Logger string       `json:"logger,omitempty"`
	// Data is any JSON-encodable value: a string, an object…
	Data any `json:"data"`
}
