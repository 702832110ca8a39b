// mergeDynamicFields: 019's [DYNAMIC_FIELDn] and our [dfn], any case; missing fields merge as ''.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasDynamicFields, mergeDynamicFields } from '../../src/domain/templates.ts';

describe('mergeDynamicFields', () => {
  const fields = { df1: 'Dana', df2: 'Levi', df3: '14/03', df4: null, df6: 'six' };

  it('replaces [DYNAMIC_FIELD1]..[DYNAMIC_FIELD6] as 019 clients write them', () => {
    assert.equal(
      mergeDynamicFields('Hi [DYNAMIC_FIELD1] [DYNAMIC_FIELD2], born [DYNAMIC_FIELD3]', fields),
      'Hi Dana Levi, born 14/03',
    );
    assert.equal(mergeDynamicFields('[DYNAMIC_FIELD6]', fields), 'six');
  });

  it('accepts [df1]..[df6] and any letter case', () => {
    assert.equal(mergeDynamicFields('[df1]/[DF2]/[Dynamic_Field1]/[dynamic_field6]', fields), 'Dana/Levi/Dana/six');
  });

  it('merges missing and null fields as empty text, repeatedly', () => {
    assert.equal(mergeDynamicFields('<[df4]><[df5]><[DYNAMIC_FIELD5]>', fields), '<><><>');
    assert.equal(mergeDynamicFields('[df1] [df1]', {}), ' ');
  });

  it('leaves other brackets alone: [df7], [df0], [link-1], [code], unclosed', () => {
    const text = '[df7] [df0] [link-1] [code] [DYNAMIC_FIELD] [df1';
    assert.equal(mergeDynamicFields(text, fields), text);
  });

  it('does not re-merge placeholders that appear inside values', () => {
    assert.equal(mergeDynamicFields('[df1]', { df1: '[df2]', df2: 'x' }), '[df2]');
  });

  it('tells whether a template uses dynamic fields', () => {
    assert.equal(hasDynamicFields('no fields'), false);
    assert.equal(hasDynamicFields('hi [Df2]'), true);
    assert.equal(hasDynamicFields('hi [Df2]'), true); // no stale regex state between calls
  });
});
