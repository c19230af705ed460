import YAML from 'yaml';
import type { ResourceType } from './resource.model';
import type { SearchItem } from './search';
import { SEARCH_FIELDS, textOf } from './text';

interface SearchResult {
  resource_type: string;
  count: number;
  items: SearchItem[];
}

export const renderYaml = (result: SearchResult): string => YAML.stringify(result);

const cell = (v: unknown) => textOf(v).replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/**
 * A Markdown table a person can read: rank, the type's searchable fields (or the requested
 * `fields`), flags, score and the ref to fetch the whole record with.
 */
export function renderMarkdown(result: SearchResult, fields: string[]): string {
  const columns = fields.length ? fields : Object.keys(SEARCH_FIELDS[result.resource_type as ResourceType] ?? {});
  const header = ['#', ...columns, 'flags', 'score', 'idap_ref'];
  const lines = [
    `**${result.count}** ${result.resource_type} found`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...result.items.map((it, i) => {
      const values = columns.map((c) =>
        cell(c.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], it.data)),
      );
      return `| ${[String(i + 1), ...values, it.flags.join(', '), String(it.score), it.idap_ref].join(' | ')} |`;
    }),
  ];
  return `${lines.join('\n')}\n`;
}
