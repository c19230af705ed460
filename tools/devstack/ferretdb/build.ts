import type { GoBuild } from '../binaries';

/**
 * FerretDB 1.24.2 (SQLite backend) as the devstack builds it: the released source plus the fixes
 * that the service depends on locally (an index that was never used, a hang, lookups by _id that
 * scanned, lookups by other fields that decoded every document, sorted reads of an _id range that decoded the whole
 * range, and a leak detector's cost). v1 is no longer maintained
 * upstream (v2 is a rewrite on PostgreSQL), so they live here; each patch must match its source exactly
 * once or the build stops.
 * Production runs MongoDB and none of this applies there.
 */

/**
 * The update command deferred closing each statement's query until the whole command returned, and
 * a statement that matches a document leaves its query (and SQLite connection) open. One bulk of
 * 100 or more matching updates took every connection of the pool (100) while each still needed one
 * more to commit: the database hung for every client, for good. Each statement's query is now
 * closed as soon as the statement is done.
 */
const UPDATE_CONNECTION_LEAK = [
  {
    file: 'internal/handler/msg_update.go',
    find: '\t\tcloser := iterator.NewMultiCloser()\n\t\tdefer closer.Close()\n',
    replace: '\t\tcloser := iterator.NewMultiCloser()\n',
  },
  {
    file: 'internal/handler/msg_update.go',
    find: '\t\tresult, err := common.UpdateDocument(ctx, c, "update", iter, &u)\n',
    replace: '\t\tresult, err := common.UpdateDocument(ctx, c, "update", iter, &u)\n\t\tcloser.Close()\n',
  },
];

/**
 * The _id index is built on the expression `_ferretdb_sjson->"_id"` while every query, update and
 * delete by _id asked for `_ferretdb_sjson->'$._id'`: the same value, but not the same expression,
 * so SQLite never used the index and read the whole table for each of them (an update by _id cost
 * as much as a scan). The column expression now is the index's.
 */
const ID_EXPRESSION = {
  file: 'internal/backends/sqlite/metadata/metadata.go',
  find: 'IDColumn = DefaultColumn + "->\'$._id\'"',
  replace: 'IDColumn = DefaultColumn + `->"_id"`',
};

/**
 * Only a filter that is exactly `{_id: <string or ObjectId>}` used the primary-key index; any other
 * (`{_id, client_id}`, `{_id: {$in: [...]}}`) read the whole collection, so every tenant-scoped
 * write or lookup by id cost a scan. Now a filter that pins `_id` to one value or to a `$in` list
 * uses the index whatever else it holds: the handlers apply the whole filter to what comes back
 * (pushdown is only ever a narrowing), so results are unchanged.
 */
const ID_PUSHDOWN_QUERY = {
  file: 'internal/backends/sqlite/collection.go',
  find: [
    '\tif params.Filter.Len() == 1 {',
    '\t\tv, _ := params.Filter.Get("_id")',
    '\t\tswitch v.(type) {',
    '\t\tcase string, types.ObjectID:',
    '\t\t\twhereClause = fmt.Sprintf(` WHERE %s = ?`, metadata.IDColumn)',
    '\t\t\targs = []any{string(must.NotFail(sjson.MarshalSingleValue(v)))}',
    '\t\t}',
    '\t}',
    '',
    '\tq += whereClause',
    '',
  ].join('\n'),
  replace: '\twhereClause, args = queryPushdown(params.Filter)\n\n\tq += whereClause\n',
};

const ID_PUSHDOWN_SOURCE = `package sqlite

import (
	"fmt"
	"strings"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// maxPushdownIDs bounds the IN list (SQLite's limit on bound parameters is far above it).
const maxPushdownIDs = 1000

// inTexts is the JSON text of each value of ops, a {$in: [...]} whose every value accept takes: the form the
// indexes compare. False for any other $in, or one too long to push down.
func inTexts(ops *types.Document, accept func(any) bool) ([]any, bool) {
	in, ok := must.NotFail(ops.Get("$in")).(*types.Array)
	if !ok || in.Len() == 0 || in.Len() > maxPushdownIDs {
		return nil, false
	}

	texts := make([]any, 0, in.Len())

	for i := 0; i < in.Len(); i++ {
		v := must.NotFail(in.Get(i))
		if !accept(v) {
			return nil, false
		}

		texts = append(texts, string(must.NotFail(sjson.MarshalSingleValue(v))))
	}

	return texts, true
}

// placeholders is n bound parameters, for an IN list.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// isID is true for the _id values the pushdown compares: strings and ObjectIds.
func isID(v any) bool {
	switch v.(type) {
	case string, types.ObjectID:
		return true
	default:
		return false
	}
}

// idPushdown narrows a query to the _id index when the filter pins _id to one string or ObjectId,
// or to a $in list of them, whatever else the filter holds (added by lead-service's devstack build).
func idPushdown(filter *types.Document) (string, []any) {
	if filter == nil || !filter.Has("_id") {
		return "", nil
	}

	switch v := must.NotFail(filter.Get("_id")).(type) {
	case string, types.ObjectID:
		return fmt.Sprintf(\` WHERE %s = ?\`, metadata.IDColumn), []any{string(must.NotFail(sjson.MarshalSingleValue(v)))}
	case *types.Document:
		if v.Len() != 1 || !v.Has("$in") {
			return idRange(v)
		}

		args, ok := inTexts(v, isID)
		if !ok {
			return "", nil
		}

		return fmt.Sprintf(\` WHERE %s IN (%s)\`, metadata.IDColumn, placeholders(len(args))), args
	}

	return "", nil
}

// idRange narrows a string range on _id ({$gte/$gt: lo, $lt/$lte: hi}) to the _id index: every
// string between lo and hi starts with their common prefix, and a string that starts with a prefix
// of plain characters is stored as JSON text starting with a quote and that same prefix, so the rows
// whose indexed JSON text starts with it are a superset of the matches (the handler filters them).
func idRange(ops *types.Document) (string, []any) {
	var lo, hi string
	var hasLo, hasHi bool

	for _, op := range ops.Keys() {
		bound, ok := must.NotFail(ops.Get(op)).(string)
		if !ok {
			return "", nil
		}

		switch op {
		case "$gt", "$gte":
			lo, hasLo = bound, true
		case "$lt", "$lte":
			hi, hasHi = bound, true
		default:
			return "", nil
		}
	}

	if !hasLo || !hasHi {
		return "", nil
	}

	n := 0
	for n < len(lo) && n < len(hi) && lo[n] == hi[n] && plainJSONByte(lo[n]) {
		n++
	}

	if n == 0 {
		return "", nil
	}

	prefix := \`"\` + lo[:n]

	return fmt.Sprintf(\` WHERE %s >= ? AND %s < ?\`, metadata.IDColumn, metadata.IDColumn),
		[]any{prefix, prefix + "\\xff"}
}

// plainJSONByte is true for the ASCII characters that JSON string encoding writes as themselves.
func plainJSONByte(b byte) bool {
	return b >= 0x20 && b < 0x7f && b != '"' && b != '\\\\' && b != '<' && b != '>' && b != '&'
}
`;

/**
 * A filter that does not pin `_id` (unfinished jobs by status, a post by its slug, the start sweep's queued jobs) read
 * every document of the collection and decoded each in Go to test it: ~90 µs a document here, so the count of
 * unfinished jobs, read every 2 s, cost more the more jobs the deployment had ever run (at 20,000 activity events a
 * read by client and subject took 1.8 s). Now a filter's top-level string equalities and `$in` lists of strings
 * are compared by SQLite on each field's JSON text, the expression the collection's indexes are built on, so an
 * index that starts with such a field is searched instead (49 ms for that read, which then decodes only the
 * client's events). A row whose field holds an array passes too (its JSON text starts with `[`; MongoDB matches its
 * elements and the handler decides), so the narrowing keeps every match: the handlers still apply the whole filter.
 * Other fields and operators are left to the handler as before, and so are fields SQLite would read as its own names
 * (`rowid`, `oid`, `_rowid_`, FerretDB's `_ferretdb_` columns) in the index's double-quoted form.
 */
const FIELD_PUSHDOWN_SOURCE = `package sqlite

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// plainField is a top-level field name that can be written into a JSON path as it is.
var plainField = regexp.MustCompile(\`^[A-Za-z_][A-Za-z0-9_]*$\`)

// queryPushdown narrows a query to the _id index when the filter pins _id (idPushdown), else by its
// top-level string fields (fieldPushdown); either way to a superset of the matches (added by
// lead-service's devstack build).
func queryPushdown(filter *types.Document) (string, []any) {
	if where, args := idPushdown(filter); where != "" {
		return where, args
	}

	return fieldPushdown(filter)
}

// fieldPushdown lets through the rows whose top-level field is one of the filter's strings for it, or holds an
// array, for every field the filter compares to a string or to a $in list of strings only. The field is read as
// the indexes read it (registry.go: DefaultColumn->"field", its JSON text), so SQLite can answer from an index
// that starts with it; the JSON text of an array starts with '['.
func fieldPushdown(filter *types.Document) (string, []any) {
	if filter == nil {
		return "", nil
	}

	var conds []string
	var args []any

	for _, key := range filter.Keys() {
		if key == "_id" || !plainField.MatchString(key) || sqliteName(key) {
			continue
		}

		values, ok := pushdownStrings(must.NotFail(filter.Get(key)))
		if !ok {
			continue
		}

		field := fmt.Sprintf("%s->%q", metadata.DefaultColumn, key)
		conds = append(conds, fmt.Sprintf("(%s IN (%s) OR (%s >= '[' AND %s < ']'))", field, placeholders(len(values)), field, field))
		args = append(args, values...)
	}

	if len(conds) == 0 {
		return "", nil
	}

	return " WHERE " + strings.Join(conds, " AND "), args
}

// sqliteName is true for a field name that SQLite reads, double-quoted, as one of its own names rather than as
// a string: the table's columns (FerretDB's reserved prefix) and the aliases of its rowid.
func sqliteName(key string) bool {
	switch k := strings.ToLower(key); k {
	case "rowid", "oid", "_rowid_":
		return true
	default:
		return strings.HasPrefix(k, "_ferretdb_")
	}
}

// isString is true for a string.
func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

// pushdownStrings is the JSON text of a string, or of each string of a {$in: [...]} of strings only.
func pushdownStrings(v any) ([]any, bool) {
	switch v := v.(type) {
	case string:
		return []any{string(must.NotFail(sjson.MarshalSingleValue(v)))}, true
	case *types.Document:
		if v.Len() != 1 || !v.Has("$in") {
			return nil, false
		}

		return inTexts(v, isString)
	}

	return nil, false
}
`;

/**
 * A find sorted by `_id` alone read every document it matched, decoded each in Go and sorted them all before the
 * limit (the handler sorts in memory; only `$natural` reached SQLite): the first 64 postings of a term with 20,000
 * took 1.7 s. When such a find pins `_id` to a string range (the search index's term and prefix reads), SQLite now
 * returns the rows in order of the ids' text and the handler no longer sorts, so its limit stops reading at once.
 * The order is of the decoded strings (`->>`, byte order, as MongoDB compares strings), not of their JSON text,
 * which escapes and quotes would reorder; SQLite sorts the range's rows itself (a few milliseconds for 20,000).
 */
const ID_SORT_PARAM = {
  file: 'internal/backends/collection.go',
  find: '\tLimit  int64\n\n\tOnlyRecordIDs bool\n',
  replace:
    '\tLimit  int64\n\n' +
    "\t// SortByID is 1 or -1 to return rows ordered by their string _id (lead-service's devstack build).\n" +
    '\tSortByID int64\n\n\tOnlyRecordIDs bool\n',
};

const ID_SORT_QUERY = {
  file: 'internal/backends/sqlite/collection.go',
  find: '\tq += prepareOrderByClause(params.Sort)\n',
  replace: '\tq += prepareOrderByClause(params.Sort)\n\tq += idOrderByClause(params.SortByID)\n',
};

const ID_SORT_PUSHDOWN = {
  file: 'internal/handler/msg_find.go',
  find: '\t// Limit pushdown is not applied if:\n',
  replace:
    '\tif !h.DisablePushdown {\n\t\tqp.SortByID = idSortPushdown(params)\n\t}\n\n' +
    '\t// Limit pushdown is not applied if:\n',
};

const ID_SORT_HANDLER = {
  file: 'internal/handler/msg_find.go',
  find: '\titer, err := common.SortIterator(iter, closer, params.Sort)\n',
  replace: '\titer, err := common.SortIterator(iter, closer, h.sortLeftToHandler(params))\n',
};

const ID_SORT_HANDLER_SOURCE = `package handler

import (
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/types"
)

// idSortPushdown answers 1 or -1 for a find sorted by _id alone whose filter pins _id to a string range
// ($gt/$gte/$lt/$lte of strings only), which the SQLite backend then reads in order; 0 otherwise
// (added by lead-service's devstack build). Only strings match such a range, so the order of the
// decoded string ids is the whole order.
func idSortPushdown(params *common.FindParams) int64 {
	if params.Sort.Len() != 1 || params.Filter == nil || !params.Filter.Has("_id") {
		return 0
	}

	v, err := params.Sort.Get("_id")
	if err != nil {
		return 0
	}

	var dir int64

	switch d := v.(type) {
	case int64:
		dir = d
	case int32:
		dir = int64(d)
	case float64:
		dir = int64(d)
	}

	if dir != 1 && dir != -1 {
		return 0
	}

	f, err := params.Filter.Get("_id")
	if err != nil {
		return 0
	}

	ops, ok := f.(*types.Document)
	if !ok || ops.Len() == 0 {
		return 0
	}

	for _, op := range ops.Keys() {
		switch op {
		case "$gt", "$gte", "$lt", "$lte":
		default:
			return 0
		}

		bound, err := ops.Get(op)
		if err != nil {
			return 0
		}

		if _, ok := bound.(string); !ok {
			return 0
		}
	}

	return dir
}

// sortLeftToHandler is the sort the handler still applies in memory: none when the backend returns
// the rows in order already (idSortPushdown).
func (h *Handler) sortLeftToHandler(params *common.FindParams) *types.Document {
	if !h.DisablePushdown && idSortPushdown(params) != 0 {
		return nil
	}

	return params.Sort
}
`;

const ID_ORDER_BY_SOURCE = `package sqlite

import "github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"

// idOrderByClause orders rows by their _id as a decoded string (byte order, as MongoDB compares
// strings), for a query whose handler no longer sorts (added by lead-service's devstack build).
func idOrderByClause(dir int64) string {
	switch dir {
	case 1:
		return " ORDER BY " + metadata.DefaultColumn + "->>'$._id'"
	case -1:
		return " ORDER BY " + metadata.DefaultColumn + "->>'$._id' DESC"
	}

	return ""
}
`;

/**
 * Every document iterator (every query, every update's read) registered itself with a pprof profile, which records
 * the goroutine's stack, and got a finalizer that panics if it was never closed: a leak detector for FerretDB's own
 * tests. Under the soak it was ~9% of the engine's CPU (stack unwinding, and a process-wide mutex every connection
 * queued on). Tracking is off; closing an iterator is unchanged.
 */
const NO_RESOURCE_TRACKING = [
  {
    file: 'internal/util/resource/resource.go',
    find: 'func Track(obj any, token *Token) {\n\tcheckArgs(obj, token)\n',
    replace: 'func Track(obj any, token *Token) {\n\tcheckArgs(obj, token)\n\tif noTracking {\n\t\treturn\n\t}\n',
  },
  {
    file: 'internal/util/resource/resource.go',
    find: 'func Untrack(obj any, token *Token) {\n\tcheckArgs(obj, token)\n',
    replace: 'func Untrack(obj any, token *Token) {\n\tcheckArgs(obj, token)\n\tif noTracking {\n\t\treturn\n\t}\n',
  },
];

const NO_RESOURCE_TRACKING_SOURCE = `package resource

// noTracking turns Track and Untrack into argument checks (see the devstack's patch).
const noTracking = true
`;

export const FERRETDB_BUILD: GoBuild = {
  binary: 'ferretdb',
  module: 'github.com/FerretDB/FerretDB',
  cmd: './cmd/ferretdb',
  version: 'v1.24.2',
  usualMinutes: '2 to 5',
  cacheName: 'ferretdb-v1.24.2-p10',
  generated: {
    // FerretDB refuses to start without its version file, which its release tooling normally writes.
    'build/version/version.txt': 'v1.24.2\n',
    'internal/backends/sqlite/id_pushdown.go': ID_PUSHDOWN_SOURCE,
    'internal/backends/sqlite/field_pushdown.go': FIELD_PUSHDOWN_SOURCE,
    'internal/backends/sqlite/id_order_by.go': ID_ORDER_BY_SOURCE,
    'internal/handler/id_sort_pushdown.go': ID_SORT_HANDLER_SOURCE,
    'internal/util/resource/no_tracking.go': NO_RESOURCE_TRACKING_SOURCE,
  },
  patches: [
    ...UPDATE_CONNECTION_LEAK,
    ID_EXPRESSION,
    ID_PUSHDOWN_QUERY,
    ID_SORT_PARAM,
    ID_SORT_QUERY,
    ID_SORT_PUSHDOWN,
    ID_SORT_HANDLER,
    ...NO_RESOURCE_TRACKING,
  ],
};
