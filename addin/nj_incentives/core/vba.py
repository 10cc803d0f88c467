"""What makes a name unusable in the classic add-in's generated VBA wrappers.

The classic xlwings add-in writes one VBA ``Function`` per NJ_* function, with the Python
parameters as VBA parameters; a parameter named ``end`` or ``date`` makes the whole module
fail to compile. The registry checks every name when a function is registered
(:func:`vba_identifier_problem`); the tests check the generated text (:func:`vba_problems`).
"""

from __future__ import annotations

import re

__all__ = ["VBA_RESERVED", "vba_declarations", "vba_identifier_problem", "vba_problems"]

#: Words a VBA parameter cannot be named (keywords, statements, types), and names the
#: generated wrapper itself uses (``Array``, ``XLPy``, ``Application`` ...): a parameter
#: named ``end`` or ``date`` makes the classic add-in's VBA module fail to compile.
_VBA_RESERVED_WORDS = """
    AddressOf Alias And Any Append Array As Attribute Base Binary Boolean ByRef Byte ByVal
    Call Case CBool CByte CCur CDate CDbl CDec CDecl CInt Circle CLng CLngLng CLngPtr Close
    Compare Const CSng CStr Currency CVar CVErr Date Debug Decimal Declare DefBool DefByte
    DefCur DefDate DefDbl DefDec DefInt DefLng DefLngLng DefLngPtr DefObj DefSng DefStr
    DefVar Dim Do DoEvents Double Each Else ElseIf Empty End EndIf Enum Eqv Erase Err Error
    Event Exit Explicit False Fix For Friend Function Get Global GoSub GoTo If Imp Implements
    In Input InputB Int Integer Is LBound Len LenB Let Lib Like Line LINEINPUT Lock Long
    LongLong LongPtr Loop LSet Me Mid MidB Mod Module New Next Not Nothing Null Object On
    Open Option Optional Or Output ParamArray Preserve Print Private Property PSet Public Put
    RaiseEvent Random Read ReDim Rem Reset Resume Return RSet Scale Seek Select Set Sgn
    Shared Single Spc Static Step Stop StrComp String Sub Tab Text Then Time To True Type
    TypeOf UBound Unlock Until Variant Wend While Width With WithEvents Write Xor
    Application ActiveWorkbook ThisWorkbook Range XLPy argsArray k failed Caller
"""
VBA_RESERVED = frozenset(word.lower() for word in _VBA_RESERVED_WORDS.split())
_VBA_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,254}")


def vba_identifier_problem(name: str) -> str | None:
    """Why ``name`` cannot be a parameter or function name in VBA, or None if it can."""
    if not _VBA_IDENTIFIER.fullmatch(name):
        return f"{name!r} is not a VBA identifier (a letter, then letters, digits or _)"
    if name.lower() in VBA_RESERVED:
        return f"{name!r} is a reserved word or a name the generated VBA wrapper uses"
    return None


_VBA_DECLARATION = re.compile(r"^[ \t]*(?:Function|Sub)[ \t]+(\w+)\((.*)\)[ \t]*$", re.MULTILINE)


def vba_declarations(vba: str) -> dict[str, list[str]]:
    """``{procedure: [parameter, ...]}`` declared in VBA text (``Optional``,
    ``ParamArray`` and ``()`` kept, as written)."""
    return {
        name: [part.strip() for part in parameters.split(",") if part.strip()]
        for name, parameters in _VBA_DECLARATION.findall(vba)
    }


def vba_problems(vba: str) -> list[str]:
    """What would stop VBA text such as the classic add-in's generated wrappers from
    compiling: illegal or reserved names, duplicate parameters (VBA ignores case), a
    parameter named like its procedure, a required parameter after an optional one."""
    problems: list[str] = []
    for procedure, parameters in vba_declarations(vba).items():
        names: list[str] = []
        optional_seen = False
        for declared in parameters:
            optional = declared.startswith(("Optional ", "ParamArray "))
            name = declared.split(" ")[-1].removesuffix("()")
            if optional_seen and not optional:
                problems.append(f"{procedure}: required {name!r} follows an optional parameter")
            optional_seen = optional_seen or optional
            names.append(name)
        for name in [procedure, *names]:
            problem = vba_identifier_problem(name)
            if problem is not None:
                problems.append(f"{procedure}: {problem}")
        lowered = [name.lower() for name in names]
        for name in sorted({n for n in lowered if lowered.count(n) > 1}):
            problems.append(f"{procedure}: parameter {name!r} is declared twice")
        if procedure.lower() in lowered:
            problems.append(f"{procedure}: a parameter has the procedure's name")
    return problems
