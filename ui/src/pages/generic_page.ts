// The page for a tool that has no page of its own yet: its JSON laid out as panels, label/value
// lists and tables, so every tool the server offers can be read in the UI from day one.
import { h } from '../dom';
import { formatCount, humanize } from '../format';
import { dataTable, type Column } from '../components/data_table';
import { keyValueList, panel } from '../components/panel';
import { toolHeader } from '../components/page_header';
import type { PageContext, ToolPage } from './tool_page';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export const genericPage: ToolPage = {
  async render(root, ctx: PageContext) {
    const data = await ctx.fetchData<Json>();
    root.append(toolHeader(ctx, 'Raw view of this tool\'s result'));
    root.append(...sections(data, ctx.title, 0));
  },
};

function isObject(v: Json): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function scalarText(v: Json): string {
  if (v === null) return '–';
  if (typeof v === 'number') return Number.isInteger(v) ? formatCount(v) : String(Number(v.toPrecision(6)));
  if (Array.isArray(v)) return v.every((x) => !isObject(x) && !Array.isArray(x)) ? v.map(scalarText).join(', ') : `${v.length} items`;
  if (isObject(v)) return `${Object.keys(v).length} fields`;
  return String(v);
}

function sections(value: Json, title: string, depth: number): HTMLElement[] {
  if (Array.isArray(value) && value.length > 0 && value.every(isObject)) return [panel(title, objectTable(value, title))];
  if (!isObject(value)) return [panel(title, h('p', {}, scalarText(value)))];

  const scalars: [string, string][] = [];
  const nested: HTMLElement[] = [];
  for (const [key, v] of Object.entries(value)) {
    const isTable = Array.isArray(v) && v.length > 0 && v.every(isObject);
    if ((isObject(v) && depth < 2) || isTable) nested.push(...sections(v, humanize(key), depth + 1));
    else scalars.push([humanize(key), scalarText(v)]);
  }
  const own = scalars.length > 0 ? [panel(title, keyValueList(scalars))] : [];
  return [...own, ...nested];
}

function objectTable(rows: JsonObject[], label: string): HTMLElement {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const columns: Column<JsonObject>[] = keys.map((key) => {
    const numeric = rows.every((r) => r[key] === undefined || r[key] === null || typeof r[key] === 'number');
    return {
      key,
      title: humanize(key),
      numeric,
      value: (r) => {
        const v = r[key];
        return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' ? v : v == null ? null : scalarText(v);
      },
      render: (r) => (r[key] === undefined ? '' : scalarText(r[key])),
    };
  });
  return dataTable({ columns, rows, label });
}
