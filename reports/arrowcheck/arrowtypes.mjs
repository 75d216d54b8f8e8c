// Shared by check.mjs and checkrun.mjs: how an apache-arrow type is spelled.
import { Precision, Type } from 'apache-arrow';

// typeName spells an apache-arrow DataType the way Go's arrow names it.
export function typeName(t) {
  switch (t.typeId) {
    case Type.Int: return `${t.isSigned ? 'int' : 'uint'}${t.bitWidth}`;
    case Type.Float:
      return { [Precision.HALF]: 'float16', [Precision.SINGLE]: 'float32', [Precision.DOUBLE]: 'float64' }[t.precision];
    case Type.Utf8: return 'utf8';
    case Type.Bool: return 'bool';
    // As reports.typeName spells it, with the element's type.
    case Type.List: return `list<${typeName(t.children[0].type)}>`;
    default: return `other:${String(t)}`;
  }
}
