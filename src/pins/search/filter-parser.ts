import { searchError } from './search-error';

/**
 * Meilisearch's filter grammar, parsed by a tokenizer and a recursive-descent parser:
 *
 *   expression = or
 *   or         = and ("OR" and)*
 *   and        = not ("AND" not)*
 *   not        = "NOT" not | primary
 *   primary    = "(" expression ")" | geoRadius | geoBoundingBox | condition
 *   condition  = value ( ("="|"!="|">"|">="|"<"|"<=") value | value "TO" value
 *                      | "NOT"? "IN" "[" value ("," value)* ","? "]" | "NOT"? "EXISTS"
 *                      | "IS" "NOT"? ("NULL"|"EMPTY") )
 *   value      = a quoted string ('...' or "...", backslash escapes) or a bare word
 *
 * Keywords are upper-case, as in Meilisearch. The array form (outer AND of inner ORs) is parsed by
 * `parseFilterInput`.
 */
export type Comparator = '=' | '!=' | '>' | '>=' | '<' | '<=';

/** Meilisearch's words for a condition that is not one (followed by ` at \`<the rest of the filter>\`.`). */
const EXPECTING_OPERATION =
  'Was expecting an operation `=`, `!=`, `>=`, `>`, `<=`, `<`, `IN`, `NOT IN`, `TO`, `EXISTS`, `NOT EXISTS`, ' +
  '`IS NULL`, `IS NOT NULL`, `IS EMPTY`, `IS NOT EMPTY`, `_geoRadius`, or `_geoBoundingBox`';

export type FilterNode =
  | { kind: 'and'; children: FilterNode[] }
  | { kind: 'or'; children: FilterNode[] }
  | { kind: 'not'; child: FilterNode }
  | { kind: 'compare'; field: string; op: Comparator; value: string }
  | { kind: 'range'; field: string; from: string; to: string }
  | { kind: 'in'; field: string; values: string[] }
  | { kind: 'exists'; field: string }
  | { kind: 'isNull'; field: string }
  | { kind: 'isEmpty'; field: string }
  | { kind: 'geoRadius'; lat: number; lng: number; meters: number }
  | { kind: 'geoBox'; top: number; right: number; bottom: number; left: number };

type TokenKind = 'word' | 'string' | 'op' | '(' | ')' | '[' | ']' | ',' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
  at: number; // 0-based offset, for messages
}

const OPS = ['!=', '>=', '<=', '=', '>', '<'];
const SPECIAL = new Set(['(', ')', '[', ']', ',', '=', '!', '>', '<', '"', "'"]);

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '(' || c === ')' || c === '[' || c === ']' || c === ',') {
      tokens.push({ kind: c, text: c, at: i++ });
      continue;
    }
    const op = OPS.find((o) => input.startsWith(o, i));
    if (op) {
      tokens.push({ kind: 'op', text: op, at: i });
      i += op.length;
      continue;
    }
    if (c === '"' || c === "'") {
      const start = i++;
      let text = '';
      while (i < input.length && input[i] !== c) {
        if (input[i] === '\\' && i + 1 < input.length) i++;
        text += input[i++];
      }
      if (i >= input.length)
        throw filterError(input, start, `Expression \`${input.slice(start)}\` is missing the closing quote \`${c}\`.`);
      i++;
      tokens.push({ kind: 'string', text, at: start });
      continue;
    }
    const start = i;
    while (i < input.length && !/\s/.test(input[i]) && !SPECIAL.has(input[i])) i++;
    if (i === start) throw filterError(input, start, `Found unexpected character \`${c}\`.`);
    tokens.push({ kind: 'word', text: input.slice(start, i), at: start });
  }
  tokens.push({ kind: 'end', text: '', at: input.length });
  return tokens;
}

function filterError(input: string, at: number, message: string) {
  return searchError('invalid_search_filter', `${message}\n${at + 1}:${input.length + 1} ${input}`);
}

const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'TO', 'IN', 'EXISTS', 'IS', 'NULL', 'EMPTY']);

class Parser {
  private pos = 0;
  constructor(
    private readonly input: string,
    private readonly tokens: Token[],
  ) {}

  parse(): FilterNode {
    const node = this.or();
    if (this.peek().kind !== 'end')
      this.fail(
        `Found unexpected characters at the end of the filter: \`${this.input.slice(this.peek().at)}\`. ` +
          'You probably forgot an `OR` or an `AND` rule.',
      );
    return node;
  }

  private peek(ahead = 0): Token {
    return this.tokens[Math.min(this.pos + ahead, this.tokens.length - 1)];
  }
  private next(): Token {
    return this.tokens[this.pos++];
  }
  private isWord(text: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'word' && t.text === text;
  }
  private fail(message: string, at = this.peek().at): never {
    throw filterError(this.input, at, message);
  }
  private expect(kind: TokenKind, what: string): Token {
    const t = this.peek();
    if (t.kind !== kind) this.fail(`Expected ${what} but found \`${t.text || 'end of filter'}\`.`);
    return this.next();
  }

  /** operand ("OR"|"AND" operand)*, as `kind`; a single operand stands alone. */
  private joined(kind: 'or' | 'and', operand: () => FilterNode): FilterNode {
    const keyword = kind.toUpperCase();
    const children = [operand()];
    while (this.isWord(keyword)) {
      this.next();
      children.push(operand());
    }
    return children.length === 1 ? children[0] : { kind, children };
  }

  private or(): FilterNode {
    return this.joined('or', () => this.and());
  }

  private and(): FilterNode {
    return this.joined('and', () => this.not());
  }

  private not(): FilterNode {
    if (this.isWord('NOT')) {
      this.next();
      return { kind: 'not', child: this.not() };
    }
    return this.primary();
  }

  private primary(): FilterNode {
    const t = this.peek();
    if (t.kind === '(') {
      this.next();
      const inner = this.or();
      if (this.peek().kind !== ')') this.fail('Expression is missing the closing `)`.', t.at);
      this.next();
      return inner;
    }
    if (t.kind === 'word' && (t.text === '_geoRadius' || t.text === '_geoBoundingBox') && this.peek(1).kind === '(') {
      return t.text === '_geoRadius' ? this.geoRadius() : this.geoBox();
    }
    if (t.kind === 'word' && /^_geo(?:Point|Distance)?$/.test(t.text)) {
      this.fail(
        `\`${t.text}\` is a reserved keyword and thus can't be used as a filter expression. ` +
          'Use the `_geoRadius(latitude, longitude, distance)` or ' +
          '`_geoBoundingBox([latitude, longitude], [latitude, longitude])` built-in rules ' +
          'to filter on `_geo` coordinates.',
      );
    }
    return this.condition();
  }

  private value(what: string): Token {
    const t = this.peek();
    if (t.kind === 'string' || (t.kind === 'word' && !KEYWORDS.has(t.text))) return this.next();
    return this.fail(`Was expecting ${what} but instead got \`${t.text || 'end of filter'}\`.`);
  }

  private condition(): FilterNode {
    const fieldToken = this.peek();
    if (fieldToken.kind !== 'word' && fieldToken.kind !== 'string') {
      this.fail(`${EXPECTING_OPERATION} at \`${this.input.slice(fieldToken.at)}\`.`);
    }
    const field = this.value('an attribute name').text;
    const t = this.peek();
    if (t.kind === 'op') {
      this.next();
      return { kind: 'compare', field, op: t.text as Comparator, value: this.value('a value').text };
    }
    if (t.kind === 'word' || t.kind === 'string') {
      if (this.isWord('IN')) return this.inList(field);
      if (this.isWord('NOT') && this.isWord('IN', 1)) {
        this.next();
        return { kind: 'not', child: this.inList(field) };
      }
      if (this.isWord('EXISTS')) {
        this.next();
        return { kind: 'exists', field };
      }
      if (this.isWord('NOT') && this.isWord('EXISTS', 1)) {
        this.pos += 2;
        return { kind: 'not', child: { kind: 'exists', field } };
      }
      if (this.isWord('IS')) {
        this.next();
        const negated = this.isWord('NOT') ? (this.next(), true) : false;
        const what = this.next();
        if (what.kind !== 'word' || (what.text !== 'NULL' && what.text !== 'EMPTY'))
          this.fail('Was expecting `NULL` or `EMPTY` after `IS`.', what.at);
        const node: FilterNode = what.text === 'NULL' ? { kind: 'isNull', field } : { kind: 'isEmpty', field };
        return negated ? { kind: 'not', child: node } : node;
      }
      if (!KEYWORDS.has(t.text) || t.kind === 'string') {
        const from = this.next().text;
        if (!this.isWord('TO')) this.fail('Was expecting `TO` in a range `attribute from TO to`.');
        this.next();
        return { kind: 'range', field, from, to: this.value('the end of the range').text };
      }
    }
    return this.fail(`${EXPECTING_OPERATION} at \`${this.input.slice(fieldToken.at)}\`.`);
  }

  private inList(field: string): FilterNode {
    this.next(); // IN
    this.expect('[', '`[` after `IN`');
    const values: string[] = [];
    while (this.peek().kind !== ']') {
      values.push(this.value('a value in the `IN` list').text);
      if (this.peek().kind === ',') this.next();
      else if (this.peek().kind !== ']') this.fail('Expected matching `]` after the list of values.');
    }
    this.next();
    return { kind: 'in', field, values };
  }

  private numbers(count: number, rule: string): number[] {
    const out: number[] = [];
    for (let i = 0; i < count; i++) {
      if (i > 0) this.expect(',', `\`,\` between the arguments of \`${rule}\``);
      const t = this.next();
      const n = t.kind === 'word' || t.kind === 'string' ? Number(t.text) : NaN;
      if (!Number.isFinite(n) || t.text.trim() === '')
        this.fail(`The \`${rule}\` filter expects numbers, found \`${t.text || 'end of filter'}\`.`, t.at);
      out.push(n);
    }
    return out;
  }

  private geoRadius(): FilterNode {
    const start = this.next().at;
    this.expect('(', '`(`');
    if (this.peek().kind === ')')
      this.fail('The `_geoRadius` filter expects three arguments: `_geoRadius(latitude, longitude, radius)`.', start);
    const [lat, lng, meters] = this.numbers(3, '_geoRadius');
    this.expect(')', '`)` closing `_geoRadius`');
    checkLatLng(this.input, start, lat, lng);
    if (meters < 0) this.fail('The `_geoRadius` radius must be zero or more meters.', start);
    return { kind: 'geoRadius', lat, lng, meters };
  }

  private geoBox(): FilterNode {
    const start = this.next().at;
    this.expect('(', '`(`');
    const point = () => {
      this.expect('[', '`[` opening a `[latitude, longitude]` point of `_geoBoundingBox`');
      const p = this.numbers(2, '_geoBoundingBox');
      this.expect(']', '`]` closing a point of `_geoBoundingBox`');
      checkLatLng(this.input, start, p[0], p[1]);
      return p;
    };
    const [top, right] = point();
    this.expect(',', '`,` between the two points of `_geoBoundingBox`');
    const [bottom, left] = point();
    this.expect(')', '`)` closing `_geoBoundingBox`');
    if (top < bottom) this.fail('The top latitude of `_geoBoundingBox` is below its bottom latitude.', start);
    return { kind: 'geoBox', top, right, bottom, left };
  }
}

function checkLatLng(input: string, at: number, lat: number, lng: number) {
  if (lat < -90 || lat > 90)
    throw filterError(input, at, `Bad latitude \`${lat}\`. Latitude must be contained between -90 and 90 degrees.`);
  if (lng < -180 || lng > 180)
    throw filterError(input, at, `Bad longitude \`${lng}\`. Longitude must be contained between -180 and 180 degrees.`);
}

/** Parses one filter expression; an empty one is no filter (null). */
export function parseFilter(input: string): FilterNode | null {
  if (input.trim() === '') return null;
  return new Parser(input, tokenize(input)).parse();
}

/** A search body's `filter`: a string, or the array form (strings ANDed; an inner array's strings ORed). */
export function parseFilterInput(filter: unknown): FilterNode | null {
  if (filter === undefined || filter === null) return null;
  if (typeof filter === 'string') return parseFilter(filter);
  if (!Array.isArray(filter))
    throw searchError(
      'invalid_search_filter',
      'Invalid value type at `.filter`: expected a string or an array, but found something else.',
    );
  const and: FilterNode[] = [];
  for (const item of filter) {
    if (typeof item === 'string') {
      const node = parseFilter(item);
      if (node) and.push(node);
    } else if (Array.isArray(item)) {
      const or = item
        .map((inner) => {
          if (typeof inner !== 'string')
            throw searchError(
              'invalid_search_filter',
              'Invalid value type in the filter array: an inner array may only hold strings.',
            );
          return parseFilter(inner);
        })
        .filter((n): n is FilterNode => n !== null);
      if (or.length) and.push(or.length === 1 ? or[0] : { kind: 'or', children: or });
    } else {
      throw searchError(
        'invalid_search_filter',
        'Invalid value type in the filter array: expected strings or arrays of strings.',
      );
    }
  }
  if (and.length === 0) return null;
  return and.length === 1 ? and[0] : { kind: 'and', children: and };
}

/** Every attribute a filter names (for the filterable-attributes check). */
export function filterFields(node: FilterNode | null, out: string[] = []): string[] {
  if (!node) return out;
  if (node.kind === 'and' || node.kind === 'or') node.children.forEach((c) => filterFields(c, out));
  else if (node.kind === 'not') filterFields(node.child, out);
  else if (node.kind === 'geoRadius' || node.kind === 'geoBox') out.push('_geo');
  else out.push(node.field);
  return out;
}
