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
  it('gives the prediction alone where the step is not given', () => {
    expect(predictionText(null, 40)).toBe(`Predicted step: ${formatMs(40)}.`);
  });
});
