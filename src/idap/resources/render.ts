import YAML from 'yaml';
import type { Schemas } from '../../lib/contract-types';
import { SEARCH_FIELDS, textOf } from '../search/text';

/** A search's answer or a list's page, as the JSON answer has it (a list's page: next_cursor, where the next starts). */
type RenderedResult = Pick<Schemas['SearchResult'], 'resource_type' | 'count' | 'items'> &
  Partial<Pick<Schemas['SearchResult'], 'next_cursor'>>;

export const renderYaml = (result: RenderedResult): string => YAML.stringify(result);

const cell = (v: unknown) => textOf(v).replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/**
 * A Markdown table a person can read: rank, the type's searchable fields (or the requested `fields`), flags, then
 * a search's score or a list's modified_at, and the ref to fetch the whole record with; a list's page ends with
 * the cursor that goes on.
 */
export function renderMarkdown(result: RenderedResult, fields: string[], kind: 'search' | 'list' = 'search'): string {
  const columns = fields.length ? fields : Object.keys(SEARCH_FIELDS[result.resource_type] ?? {});
  const header = ['#', ...columns, 'flags', kind === 'search' ? 'score' : 'modified_at', 'idap_ref'];
  const lines = [
    `**${result.count}** ${result.resource_type}${kind === 'search' ? ' found' : ''}`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...result.items.map((it, i) => {
      const values = columns.map((c) =>
        cell(c.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], it.data)),
      );
      const last = kind === 'search' ? String(it.score) : it.modified_at;
      return `| ${[String(i + 1), ...values, it.flags.join(', '), last, it.idap_ref].join(' | ')} |`;
    }),
    ...(result.next_cursor ? ['', `next_cursor: ${result.next_cursor}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}
