// Colours that stay apart from each other, for slices and series without a meaning of their
// own. Meaningful colours (input is red, device compute green) live with their categories.
export const PALETTE = [
  '#4285f4', '#34a853', '#fbbc04', '#ea4335', '#a142f4', '#24c1e0', '#f439a0', '#ff6d01',
  '#9aa0a6', '#185abc', '#0d652d', '#b06000',
];

export const OTHER_COLOUR = '#dadce0';
