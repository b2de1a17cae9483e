// Tool id (XProf's names, as the server lists them) -> the page that shows it. Tools without
// a page of their own still show, through the generic page.
import type { ToolPage } from './tool_page';
import { genericPage } from './generic_page';

const pages: Record<string, ToolPage> = {};

export function pageFor(tool: string): ToolPage {
  return pages[tool] ?? genericPage;
}
