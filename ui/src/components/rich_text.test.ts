import { describe, expect, it } from 'vitest';
import { formatMs } from '../format';
import { predictionText } from './rich_text';

describe('predictionText', () => {
  it('goes from the measured step to the predicted one, as the text report does', () => {
    expect(predictionText(463.7, 238.3)).toBe(`Predicted step: ${formatMs(463.7)} → ${formatMs(238.3)}.`);
  });
  it('says a change the critical path does not feel gains nothing', () => {
    expect(predictionText(619.272, 619.1, true)).toBe(
      `Predicted step: ${formatMs(619.272)} either way: what it changes is not on the critical path.`,
    );
  });
  it('says why where nothing the trace shows links the changed work to the steps', () => {
    expect(predictionText(59.1, 59.1, true, 'FileRead')).toBe(
      `Predicted step: ${formatMs(59.1)} either way: nothing the trace shows links FileRead to the steps (a loader thread not marked with _p/_c, an untraced thread), so the replay cannot tell.`,
    );
  });
  it('gives the prediction alone where the step is not given', () => {
    expect(predictionText(null, 40)).toBe(`Predicted step: ${formatMs(40)}.`);
  });
});
