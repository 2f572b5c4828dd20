import { describe, expect, test } from 'vitest';
import { NotAcceptableError, UnsupportedMediaTypeError } from '../core/errors.js';
import { MEDIA_TYPE, negotiateAccept, negotiateContentType } from './negotiate.js';

const EXT = 'https://jsonapi.org/ext/atomic';
const supported = new Set([EXT]);

describe('negotiateAccept', () => {
  test.each([
    ['no header', null],
    ['*/*', '*/*'],
    ['another type only', 'text/html, application/json;q=0.9'],
    ['the plain media type', MEDIA_TYPE],
    ['a profile', `${MEDIA_TYPE}; profile="https://example.com/a https://example.com/b"`],
    ['a supported extension', `${MEDIA_TYPE}; ext="${EXT}"`],
    ['q beside ext', `${MEDIA_TYPE}; ext="${EXT}"; q=0.5`],
    ['one acceptable instance among others', `${MEDIA_TYPE}; charset=utf-8, ${MEDIA_TYPE}; profile="x"`],
    ['a quoted comma inside a parameter', `${MEDIA_TYPE}; profile="https://example.com/a,b"`],
  ])('accepts %s', (_, header) => {
    expect(() => negotiateAccept(header, supported)).not.toThrow();
  });

  test.each([
    ['a charset', `${MEDIA_TYPE}; charset=utf-8`],
    ['an unknown parameter after ext', `${MEDIA_TYPE}; ext="${EXT}"; v=2`],
    ['only unsupported extensions', `${MEDIA_TYPE}; ext="https://example.com/other"`],
    ['a supported and an unsupported extension together', `${MEDIA_TYPE}; ext="${EXT} https://example.com/other"`],
    ['every instance refused', `${MEDIA_TYPE}; charset=utf-8, ${MEDIA_TYPE}; v=1`],
    ['the type in capitals with a parameter', 'Application/VND.API+JSON; charset=utf-8'],
  ])('refuses %s with a 406', (_, header) => {
    expect(() => negotiateAccept(header, supported)).toThrow(NotAcceptableError);
  });
});

describe('negotiateContentType', () => {
  test.each([
    ['the plain media type', MEDIA_TYPE, []],
    ['the type in capitals', 'Application/Vnd.Api+Json', []],
    ['a profile', `${MEDIA_TYPE}; profile="https://example.com/p"`, []],
    ['a supported extension', `${MEDIA_TYPE};ext="${EXT}"`, [EXT]],
    ['an empty parameter (a trailing semicolon)', `${MEDIA_TYPE};`, []],
    ['an empty quoted ext', `${MEDIA_TYPE}; ext=""`, []],
  ])('accepts %s', (_, header, extensions) => {
    expect(negotiateContentType(header, supported)).toEqual(extensions);
  });

  test.each([
    ['no header', null],
    ['application/json', 'application/json'],
    ['a charset', `${MEDIA_TYPE}; charset=utf-8`],
    ['an unsupported extension', `${MEDIA_TYPE}; ext="https://example.com/other"`],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['a parameter without a value', `${MEDIA_TYPE};ext`],
    ['a parameter with an empty token value', `${MEDIA_TYPE}; ext=`],
    ['a parameter without a name', `${MEDIA_TYPE}; =x`],
    ['two media types', `${MEDIA_TYPE}, ${MEDIA_TYPE}`],
    ['two media types, the first acceptable', `${MEDIA_TYPE}, application/json`],
  ])('refuses %s with a 415 pointing at Content-Type', (_, header) => {
    let thrown: unknown;
    try {
      negotiateContentType(header, supported);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnsupportedMediaTypeError);
    expect((thrown as UnsupportedMediaTypeError).source).toEqual({ header: 'Content-Type' });
  });
});
