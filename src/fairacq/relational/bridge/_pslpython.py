"""Run the reference PSL implementation (``pslpython``) on the same rules and data.

PSL 2.x is the Java system that Zhang & Ramesh builds on; ``pslpython`` runs it in this process
through JPype. :func:`run_psl` hands PSL rule text and the observation / target frames that
:meth:`Database.from_frames` reads, runs MAP inference (consensus ADMM) and returns the
inferred atoms, PSL's own MAP objective and its timings, so our grounding and ADMM can be
cross-checked against it and benchmarked beside it.

Three PSL behaviours matter for a fair comparison (Zhang & Ramesh; docs/paper-notes/relational.md):

- PSL divides every weight by the largest one unless ``inference.normalize`` is false; the
  objective returned here is always on the scale of the rule weights as written.
- PSL's default ADMM tolerances (``epsilonabs=1e-5``, ``epsilonrel=1e-3``) stop early when
  linear constraints are present; :data:`PSL_TIGHT_OPTIONS`, the default here, tightens them.
- Arithmetic rules with filters (the fairness constraints) cannot go through ``pslpython``'s
  ``Rule`` class, which rejects any text after the final ``.``; the rule text is therefore
  passed to PSL's runtime unchanged, in the configuration layout ``pslpython.Model`` builds.

Closed-world semantics follow PSL's runtime: a predicate with no target rows is closed (an
atom absent from its observations has value 0); a predicate with target rows is open, its
observed rows are fixed evidence and its target rows are the variables. A rule that reaches
an atom of an open predicate that is neither observed nor a target makes PSL fail with an
"illegal access to target atoms" error.
"""

from __future__ import annotations

import re
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._deps import require
from fairacq._result import Result
from fairacq.exceptions import InvalidDataError, InvalidParameterError, MissingDependencyError

if TYPE_CHECKING:
    from fairacq.relational.hlmrf._ground_model import GroundModel
    from fairacq.relational.inference._fairness import FairnessSpec

__all__ = ["PSL_TIGHT_OPTIONS", "PslResult", "psl_fairness", "psl_unavailable", "run_psl"]

#: Options :func:`run_psl` passes to PSL unless overridden: the raw (unnormalised) objective,
#: ADMM run to tolerances well below the 1e-3 a cross-check needs, one thread (our solver
#: uses one) and a fixed seed for PSL's random initial values.
PSL_TIGHT_OPTIONS: Mapping[str, str] = MappingProxyType(
    {
        "inference.normalize": "false",
        "admmreasoner.epsilonabs": "1e-7",
        "admmreasoner.epsilonrel": "1e-6",
        "admmreasoner.maxiterations": "200000",
        "parallel.numthreads": "1",
        "random.seed": "4",
    }
)

_VALUE = "value"
_LOGGER_NAME = "org.linqs.psl"
_OBJECTIVE_RE = re.compile(
    r"Final Objective: (?P<obj>[-+0-9.eEinfINFNaN]+), Violated Constraints: (?P<viol>\d+)"
    r".*Total Number of Iterations: (?P<iter>\d+)"
)
_WEIGHT_RE = re.compile(r"^\s*(?P<w>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*:")
_PHASES = {
    "load": ("Data loading start", "Data loading complete"),
    "ground": ("Grounding out model.", "Grounding complete."),
    "infer": ("Beginning inference.", "Inference complete."),
}


@dataclass(frozen=True, eq=False)
class PslResult(Result):
    """What one PSL inference run returned.

    A :class:`~fairacq.Result`: :meth:`to_frame` is ``values``, the inferred atoms.
    ``save(path)`` writes every field (``phase_seconds`` comes back as a plain dict) and
    ``PslResult.load(path)`` reads them all back.

    Parameters
    ----------
    values : pandas.DataFrame
        One row per inferred target atom, in the layout of ``MapResult.to_frame``:
        ``predicate`` (the name as given to :func:`run_psl`), ``arg0 ... argK-1`` (str;
        ``None`` pads atoms of lower arity) and ``value`` (float in [0, 1]; PSL reports
        values as 32-bit floats, so about 7 significant digits).
    objective : float or None
        PSL's final MAP objective, ``sum_j w_j h_j(y)`` with the rule weights as written
        (rescaled by the largest weight when ``inference.normalize`` was true); ``None``
        when PSL did not log it. PSL logs it as a 32-bit float.
    seconds : float
        Wall time of the PSL run (data loading, grounding and inference) in this process,
        without starting the JVM.
    jvm_seconds : float, default=0.0
        Time this call spent starting the JVM (0 when it was already running).
    phase_seconds : mapping of str to float
        PSL's own timings of its ``"load"``, ``"ground"`` and ``"infer"`` phases, read from
        its log (millisecond resolution).
    n_iterations : int or None, default=None
        ADMM iterations PSL ran.
    violated_constraints : int or None, default=None
        Hard constraints PSL reports violated at the end (0 when feasible).
    log : str, default=""
        PSL's log lines of the run, for diagnostics.
    """

    values: pd.DataFrame
    objective: float | None
    seconds: float
    jvm_seconds: float = 0.0
    phase_seconds: Mapping[str, float] = field(default_factory=dict)
    n_iterations: int | None = None
    violated_constraints: int | None = None
    log: str = ""

    def to_frame(self) -> pd.DataFrame:
        """Return the inferred atoms: ``predicate``, ``arg0 ...``, ``value`` (a copy)."""
        return self.values.copy()

    def _caption(self) -> str:
        objective = "not logged" if self.objective is None else f"{self.objective:.6g}"
        iterations = "" if self.n_iterations is None else f", {self.n_iterations} iterations"
        violated = self.violated_constraints
        broken = "" if violated is None else f", {violated} hard constraints violated"
        return f"{len(self.values)} atoms, objective {objective}{iterations}{broken}"

    def to_vector(self, model: GroundModel) -> NDArray[np.float64]:
        """Return the inferred values in the order of ``model.variables``.

        Parameters
        ----------
        model : GroundModel
            A model grounded from the same rules and data.

        Returns
        -------
        ndarray of shape (model.n_variables,)

        Raises
        ------
        InvalidDataError
            If a variable of ``model`` has no value in this result.
        """
        arg_cols = [c for c in self.values.columns if c not in ("predicate", _VALUE)]
        rows = self.values[["predicate", *arg_cols]].itertuples(index=False, name=None)
        lookup = {
            (str(r[0]), tuple(str(x) for x in r[1:] if x is not None)): float(v)
            for r, v in zip(rows, self.values[_VALUE], strict=True)
        }
        keys = [
            (str(p), tuple(str(x) for x in a))
            for p, a in zip(model.variables["predicate"], model.variables["args"], strict=True)
        ]
        missing = [k for k in keys if k not in lookup]
        if missing:
            raise InvalidDataError(
                f"PslResult.to_vector: {len(missing)} of {len(keys)} model variables have no "
                f"PSL value, e.g. {missing[0]}. Ground the model from the same targets."
            )
        return np.array([lookup[k] for k in keys], dtype=np.float64)


@dataclass
class _Jvm:
    """The process-wide JVM state (JPype can start a JVM only once per process)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    options: tuple[str, ...] | None = None
    writer: Any = None
    quiet: Any = None  # a strong reference keeps java.util.logging's level setting alive


_JVM = _Jvm()


def run_psl(
    rules: str | Sequence[str | _PslRule],
    observations: Mapping[str, pd.DataFrame],
    targets: Mapping[str, pd.DataFrame],
    truth: Mapping[str, pd.DataFrame] | None = None,
    *,
    options: Mapping[str, object] | None = None,
    jvm_options: Sequence[str] | None = None,
) -> PslResult:
    """Run PSL's MAP inference on ``rules`` over the given data.

    Parameters
    ----------
    rules : str or sequence of str
        PSL rule text, one rule per item (a single string is split into lines; blank lines
        and ``#`` / ``//`` comments are skipped). Items that are not strings but have a
        ``to_psl()`` method (our parsed rules) are converted with it. The text goes to PSL
        unchanged, so arithmetic rules with filters work, e.g.
        ``positiveSummary(+P1) / |P1| - positiveSummary(+P2) / |P2| <= 0.1 .
        {P1: protectedPaper(P1)} {P2: unprotectedPaper(P2)}``.
    observations : mapping of str to pandas.DataFrame
        Observed atoms per predicate: the argument columns in order, then an optional
        ``value`` column in [0, 1] (1.0 when absent). A predicate with no target rows is
        closed.
    targets : mapping of str to pandas.DataFrame
        Target atoms per predicate: the argument columns (a ``value`` column is ignored).
    truth : mapping of str to pandas.DataFrame or None, default=None
        Truth values of target atoms, same layout as ``observations``; passed to PSL's truth
        partition (not used by inference).
    options : mapping of str to object or None, default=None
        PSL options, applied over :data:`PSL_TIGHT_OPTIONS` (pass e.g.
        ``{"admmreasoner.epsilonabs": 1e-5, "admmreasoner.epsilonrel": 1e-3}`` for PSL's
        default tolerances). Values are converted to strings (booleans to
        ``"true"``/``"false"``).
    jvm_options : sequence of str or None, default=None
        Options for starting the JVM, e.g. ``["-Xmx4g"]``. Only the first call in a process
        starts the JVM; later calls must pass ``None`` or the same options.

    Returns
    -------
    PslResult
        The inferred target values, PSL's objective and its timings.

    Raises
    ------
    MissingDependencyError
        If ``pslpython`` (and JPype) or a Java runtime is not installed.
    InvalidDataError
        If a frame is malformed (values outside [0, 1], a predicate with two arities).
    InvalidParameterError
        If PSL rejects the rules or options, or ``jvm_options`` differ from those the
        running JVM was started with.
    """
    rule_texts = _rule_texts(rules)
    predicates, names = _predicate_configs(observations, targets, truth or {})
    runtime = require("pslpython.runtime", purpose="running the reference PSL implementation")
    jpype = require("jpype", purpose="running the reference PSL implementation")
    merged = {**PSL_TIGHT_OPTIONS, **{str(k): _option_text(v) for k, v in (options or {}).items()}}
    with _JVM.lock:
        jvm_seconds = _ensure_jvm(jpype, tuple(jvm_options or ()))
        with tempfile.TemporaryDirectory(prefix="fairacq-psl-") as tmp:
            config = {
                "options": {
                    **merged,
                    "runtime.learn": "false",
                    "runtime.inference": "true",
                    "runtime.inference.output.results": "false",
                    "runtime.db.sqlite.path": f"{tmp}/psl_sqlite",
                    "runtime.db.h2.path": f"{tmp}/psl_h2",
                },
                "rules": rule_texts,
                "predicates": predicates,
            }
            _JVM.writer.getBuffer().setLength(0)
            start = time.perf_counter()
            try:
                raw = runtime.run(config, base_path=tmp)
            except jpype.JException as exc:
                reason = _java_message(exc).rstrip(".")
                raise InvalidParameterError(
                    f"PSL rejected the model: {reason}. Check the rule syntax (PSL 2.x), the "
                    "predicate names and the options."
                ) from exc
            seconds = time.perf_counter() - start
            log = str(_JVM.writer.toString())
    objective, n_iter, violated = _parse_objective(log)
    if objective is not None and merged["inference.normalize"].lower() == "true":
        objective *= _largest_weight(rule_texts)
    return PslResult(
        values=_results_frame(raw, names),
        objective=objective,
        seconds=seconds,
        jvm_seconds=jvm_seconds,
        phase_seconds=MappingProxyType(_parse_phases(log)),
        n_iterations=n_iter,
        violated_constraints=violated,
        log=log,
    )


def psl_unavailable() -> str | None:
    """Say why :func:`run_psl` cannot run here (pslpython, JPype or Java missing), or None.

    Examples
    --------
    >>> reason = psl_unavailable()
    >>> reason is None or isinstance(reason, str)
    True
    """
    try:
        require("pslpython.runtime", purpose="running the reference PSL implementation")
        jpype = require("jpype", purpose="running the reference PSL implementation")
    except MissingDependencyError as exc:
        return str(exc)
    if not jpype.isJVMStarted():
        try:
            jpype.getDefaultJVMPath()
        except jpype.JVMNotFoundException:
            return "no Java runtime found"
    return None


def psl_fairness(
    predicate: str,
    spec: str | FairnessSpec,
    *,
    protected: pd.DataFrame,
    unprotected: pd.DataFrame,
    group_predicates: tuple[str, str] = ("fairacqProtected", "fairacqUnprotected"),
) -> tuple[list[str], dict[str, pd.DataFrame]]:
    """Write a delta-fairness constraint as PSL arithmetic rules with filters.

    The rows are those of :func:`fairness_constraints` (same measure, same ``delta``, same
    linearisation), with group means written as PSL summations,
    ``alpha * pred(+A) / |A| + beta * pred(+B) / |B| <= -c . {A: prot(A)} {B: unprot(B)}``;
    group membership becomes two observed predicates, since a PSL filter may only mention
    its own summation variable.

    Parameters
    ----------
    predicate : str
        The target predicate the constraint is on (arity 1, e.g. ``positiveSummary``).
    spec : str or FairnessSpec
        A measure and delta, e.g. ``"rd<=0.1"``.
    protected, unprotected : pandas.DataFrame
        One argument column listing the target atoms of each group (the layout of
        ``RelationalData.protected``).
    group_predicates : tuple of two str, default=("fairacqProtected", "fairacqUnprotected")
        Names of the two observed membership predicates to add.

    Returns
    -------
    rules : list of str
        Two hard arithmetic rules (upper and lower row) for :func:`run_psl`.
    observations : dict of str to pandas.DataFrame
        The membership predicates, to merge into the observations given to :func:`run_psl`.

    Raises
    ------
    InvalidParameterError
        If a group frame does not have exactly one argument column: PSL's filters cannot
        select atoms of higher arity by group.
    """
    from fairacq.relational.hlmrf._ground_model import (
        GroundModel,
        HingePotentials,
        LinearConstraints,
    )
    from fairacq.relational.inference._fairness import fairness_constraints

    frames = {}
    for name, frame in zip(group_predicates, (protected, unprotected), strict=True):
        args = [c for c in frame.columns if c != _VALUE]
        if len(args) != 1:
            raise InvalidParameterError(
                f"psl_fairness: group atoms of '{predicate}' have {len(args)} argument columns;"
                " PSL filters can only select atoms of arity 1 by group. Constrain an arity-1 "
                "predicate, or add the constraint with fairness_constraints() instead."
            )
        frames[name] = pd.DataFrame({"arg0": frame[args[0]].astype(str).to_numpy()})
    # Read the rows off a two-variable model (one atom per group): alpha, beta and constant.
    two = pd.DataFrame({"predicate": [predicate] * 2, "args": [("p",), ("u",)]})
    model = GroundModel(two, HingePotentials.empty(2), LinearConstraints.empty(2))
    rows = fairness_constraints(model, spec, protected=[0], unprotected=[1])
    dense = rows.coefficients.toarray()
    prot, unprot = group_predicates
    rules = []
    for (alpha, beta), const in zip(dense, rows.constants, strict=True):
        rules.append(
            f"{float(alpha)!r} * {predicate}(+A) / |A| + {float(beta)!r} * {predicate}(+B) / |B|"
            f" <= {-float(const) + 0.0!r} . {{A: {prot}(A)}} {{B: {unprot}(B)}}"
        )
    return rules, frames


def _rule_texts(rules: str | Sequence[Any]) -> list[str]:
    items: Iterable[Any] = rules.splitlines() if isinstance(rules, str) else rules
    out = []
    for item in items:
        text = item if isinstance(item, str) else _to_psl(item)
        text = text.strip()
        if text and not text.startswith(("#", "//")):
            out.append(text)
    if not out:
        raise InvalidParameterError("run_psl: no rules given. Pass at least one PSL rule.")
    return out


class _PslRule(Protocol):
    """A parsed rule: it writes itself as PSL text."""

    def to_psl(self) -> str:
        """Return the rule as PSL text."""


def _to_psl(rule: Any) -> str:
    to_psl = getattr(rule, "to_psl", None)
    if not callable(to_psl):
        raise InvalidParameterError(
            f"run_psl: a rule must be PSL text or have a to_psl() method; got "
            f"{type(rule).__name__}."
        )
    return str(to_psl())


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _split_frame(frame: pd.DataFrame, where: str) -> tuple[list[str], NDArray[Any] | None]:
    """Argument columns and the value column (``None`` when absent) of one frame."""
    if not isinstance(frame, pd.DataFrame):
        raise InvalidDataError(
            f"{where}: expected a pandas DataFrame, got {type(frame).__name__}."
        )
    args = [c for c in frame.columns if c != _VALUE]
    if not args:
        raise InvalidDataError(f"{where}: no argument columns. Put the arguments first.")
    if _VALUE not in frame.columns:
        return [str(c) for c in args], None
    values = pd.to_numeric(frame[_VALUE], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values) | (values < 0) | (values > 1)
    if bad.any():
        raise InvalidDataError(
            f"{where}: column 'value' has {int(bad.sum())} entries outside [0, 1] or not "
            f"numbers (first at row {int(np.flatnonzero(bad)[0])}). Truth values must lie "
            "in [0, 1]."
        )
    return [str(c) for c in args], values


def _rows(frame: pd.DataFrame, args: list[str], values: NDArray[Any] | None) -> list[list[Any]]:
    cols = [frame[c].astype(str).tolist() for c in args]
    rows: list[list[Any]] = [list(r) for r in zip(*cols, strict=True)] if cols else []
    if values is not None:
        for row, v in zip(rows, values.tolist(), strict=True):
            row.append(float(v))
    return rows


def _predicate_configs(
    observations: Mapping[str, pd.DataFrame],
    targets: Mapping[str, pd.DataFrame],
    truth: Mapping[str, pd.DataFrame],
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """PSL runtime predicate entries (as ``pslpython.Model`` builds them) and name map."""
    configs: dict[str, dict[str, Any]] = {}
    names: dict[str, str] = {}
    for partition, frames in (
        ("observations", observations),
        ("targets", targets),
        ("truth", truth),
    ):
        for name, frame in frames.items():
            where = f"run_psl: {partition} of predicate '{name}'"
            args, values = _split_frame(frame, where)
            if partition == "targets":
                values = None
            elif values is None:
                values = np.ones(len(frame))
            key = str(name).upper()
            if key in names and names[key] != name:
                raise InvalidDataError(
                    f"run_psl: predicates '{names[key]}' and '{name}' differ only in case; "
                    "PSL treats names case-insensitively. Rename one."
                )
            names[key] = str(name)
            entry = configs.setdefault(
                key,
                {
                    "name": key,
                    "arity": len(args),
                    "types": ["UniqueStringID"] * len(args),
                    "observations": [],
                    "targets": [],
                    "truth": [],
                    "evaluations": [],
                },
            )
            if entry["arity"] != len(args):
                raise InvalidDataError(
                    f"{where}: {len(args)} argument columns, but another frame of this "
                    f"predicate has {entry['arity']}. Use one arity per predicate."
                )
            entry[partition].extend(_rows(frame, args, values))
    return configs, names


def _ensure_jvm(jpype: Any, jvm_options: tuple[str, ...]) -> float:
    """Start the JVM once (with log capture); return the seconds spent starting it."""
    if jpype.isJVMStarted():
        if _JVM.options is None:  # someone else started it; adopt it
            _JVM.options = ()
        if jvm_options and jvm_options != _JVM.options:
            raise InvalidParameterError(
                f"run_psl: the JVM is already running with options {list(_JVM.options)}; "
                f"JPype cannot restart it with {list(jvm_options)} in the same process. "
                "Pass jvm_options=None, or set them in the first call of the process."
            )
        if _JVM.writer is None:
            _JVM.writer, _JVM.quiet = _capture_psl_log(jpype)
        return 0.0
    start = time.perf_counter()
    runtime = require("pslpython.runtime", purpose="running the reference PSL implementation")
    try:
        jvm_path = jpype.getDefaultJVMPath()
    except jpype.JVMNotFoundException as exc:
        raise MissingDependencyError(
            "A Java runtime (JDK 11 or newer) is needed to run PSL through pslpython but none "
            "was found. Install one (e.g. apt-get install openjdk-17-jre-headless) or set "
            "JAVA_HOME."
        ) from exc
    jpype.startJVM(jvm_path, *jvm_options, classpath=[runtime.JAR_PATH])
    _JVM.options = jvm_options
    _JVM.writer, _JVM.quiet = _capture_psl_log(jpype)
    return time.perf_counter() - start


def _capture_psl_log(jpype: Any) -> tuple[Any, Any]:
    """Route PSL's log (``org.linqs.psl.*``) to an in-memory writer instead of stdout.

    Also silences the warnings of netlib-java (used by PSL's ADMM for constraint terms) that
    no native LAPACK is installed; it falls back to its Java implementation.
    """
    log_manager = jpype.JClass("org.apache.logging.log4j.LogManager")
    level = jpype.JClass("org.apache.logging.log4j.Level")
    writer_appender = jpype.JClass("org.apache.logging.log4j.core.appender.WriterAppender")
    pattern_layout = jpype.JClass("org.apache.logging.log4j.core.layout.PatternLayout")
    logger_config = jpype.JClass("org.apache.logging.log4j.core.config.LoggerConfig")
    psl_runtime = jpype.JClass("org.linqs.psl.runtime.Runtime")
    writer = jpype.JClass("java.io.StringWriter")()
    # PSL's classes log through the context of their own class loader.
    context = log_manager.getContext(psl_runtime.class_.getClassLoader(), False)
    config = context.getConfiguration()
    layout = pattern_layout.newBuilder().withPattern("%r|%m%n").build()
    appender = writer_appender.createAppender(layout, None, writer, "fairacq-psl", False, True)
    appender.start()
    config.addAppender(appender)
    psl_logger = logger_config(_LOGGER_NAME, level.INFO, False)
    psl_logger.addAppender(appender, None, None)
    config.addLogger(_LOGGER_NAME, psl_logger)
    context.updateLoggers()
    jul_level = jpype.JClass("java.util.logging.Level")
    netlib = jpype.JClass("java.util.logging.Logger").getLogger("com.github.fommil")
    netlib.setLevel(jul_level.SEVERE)
    return writer, netlib


def _java_message(exc: BaseException) -> str:
    """Return the innermost Java cause's message (PSL wraps parse errors several times)."""
    cause: Any = exc
    message = str(exc)
    for _ in range(20):
        text = cause.getMessage() if hasattr(cause, "getMessage") else None
        if text:
            message = str(text)
        nxt = cause.getCause() if hasattr(cause, "getCause") else None
        if nxt is None:
            break
        cause = nxt
    return message


def _parse_objective(log: str) -> tuple[float | None, int | None, int | None]:
    matches = list(_OBJECTIVE_RE.finditer(log))
    if not matches:
        return None, None, None
    last = matches[-1]
    return float(last["obj"]), int(last["iter"]), int(last["viol"])


def _parse_phases(log: str) -> dict[str, float]:
    stamps: dict[str, int] = {}
    for line in log.splitlines():
        ms, _, message = line.partition("|")
        if ms.strip().isdigit():
            stamps.setdefault(message.strip(), int(ms))
    return {
        phase: (stamps[end] - stamps[begin]) / 1000.0
        for phase, (begin, end) in _PHASES.items()
        if begin in stamps and end in stamps
    }


def _largest_weight(rule_texts: Sequence[str]) -> float:
    weights = [float(m["w"]) for t in rule_texts if (m := _WEIGHT_RE.match(t))]
    return max(weights, default=1.0) or 1.0


def _results_frame(raw: Mapping[str, Any], names: Mapping[str, str]) -> pd.DataFrame:
    """Inferred atoms in the layout of ``MapResult.to_frame``: predicate, arg0.., value."""
    atoms = [a for a in raw.get("atoms", []) if not a.get("observed", False)]
    args = [tuple(str(x) for x in a["arguments"]) for a in atoms]
    arity = max((len(a) for a in args), default=0)
    frame = pd.DataFrame(
        [a + (None,) * (arity - len(a)) for a in args],
        columns=[f"arg{i}" for i in range(arity)],
        dtype=object,
    )
    frame.insert(0, "predicate", [names.get(a["predicate"], a["predicate"]) for a in atoms])
    frame[_VALUE] = np.array([float(a["value"]) for a in atoms], dtype=np.float64)
    return frame
