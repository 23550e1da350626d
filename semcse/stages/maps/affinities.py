"""t-SNE's maths on arrays: distances, calibrated bandwidths, affinities, and the place/explain objectives.

The distance is `d = Σ_a α_a (1 − cos_a)` (SemCSE-Multi §6.2) and affinities are `exp(−d² β_i)` (A.9).
The objectives are torch functions, so autograd gives their gradients, the bandwidth calibration included.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

EPS = 1e-12
# The largest β × (a row's nearest squared distance): exp(−700) ≈ 1e-304 is still a normal float64, so a row's S
# never underflows to 0 (which would make its affinities, and any new point's p_{j|new}, 0/0).
_MAX_EXPONENT = 700.0


def unit(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (float32)."""
    x = np.asarray(x, dtype=np.float32)
    return x / np.clip(np.linalg.norm(x, axis=-1, keepdims=True), EPS, None)


def distances(
    query: Mapping[str, np.ndarray], units: Mapping[str, np.ndarray], weights: Mapping[str, float]
) -> np.ndarray:
    """[m, n] weighted cosine distances between unit-normalised query rows and map rows."""
    out: np.ndarray | None = None
    for aspect, alpha in weights.items():
        if alpha > 0:
            term = alpha * (1.0 - unit(query[aspect]) @ units[aspect].T)
            out = term if out is None else out + term
    if out is None:
        raise ValueError(f"no aspect has a positive weight: {dict(weights)}")
    return np.clip(out, 0.0, None)


def neighbours(
    units: Mapping[str, np.ndarray], weights: Mapping[str, float], k: int, chunk: int = 1024
) -> tuple[np.ndarray, np.ndarray]:
    """Exact k nearest neighbours (excluding self) under the weighted distance, in row chunks."""
    n = len(next(iter(units.values())))
    index = np.zeros((n, k), dtype=np.int64)
    dist = np.zeros((n, k))
    for start in range(0, n, chunk):
        rows = slice(start, min(start + chunk, n))
        block = distances({a: u[rows] for a, u in units.items()}, units, weights).astype(np.float64)
        block[np.arange(block.shape[0]), np.arange(rows.start, rows.stop)] = np.inf
        part = np.argpartition(block, k - 1, axis=1)[:, :k]
        index[rows] = part
        dist[rows] = np.take_along_axis(block, part, 1)
    return index, dist


def calibrate(sq: np.ndarray, perplexity: float, iterations: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Per-row precision β with perplexity(exp(−sq β)) = target, by vectorised bisection; returns β and S.

    A row whose neighbours are all (nearly) equally far has an entropy near log(k) whatever β, above the target, so
    bisection would double β without end: β stops where β × the nearest squared distance reaches `_MAX_EXPONENT`,
    and such a row keeps (nearly) uniform affinities instead of NaN ones.
    """
    target = np.log(perplexity)
    nearest = sq.min(1, keepdims=True)
    ceiling = _beta_ceiling(nearest[:, 0])
    lo = np.zeros(len(sq))
    hi = np.full(len(sq), np.inf)
    beta = np.minimum(np.ones(len(sq)), ceiling)
    shifted = sq - nearest  # stable exponentials; entropy is shift-invariant
    for _ in range(iterations):
        weights = np.exp(-shifted * beta[:, None])
        total = weights.sum(1)
        entropy = np.log(total) + beta * (shifted * weights).sum(1) / total
        too_flat = entropy > target
        lo = np.where(too_flat, beta, lo)
        hi = np.where(too_flat, hi, beta)
        beta = np.minimum(np.where(np.isinf(hi), beta * 2, (lo + hi) / 2), ceiling)
    return beta, np.exp(-sq * beta[:, None]).sum(1)


def _beta_ceiling(nearest: np.ndarray) -> np.ndarray:
    """The largest β `calibrate` gives a row whose nearest squared distance is `nearest` (∞ at distance 0)."""
    ceiling = np.full(len(nearest), np.inf)
    np.divide(_MAX_EXPONENT, nearest, out=ceiling, where=nearest > 0)
    return ceiling


def calibrated_beta(sq: torch.Tensor, perplexity: float) -> torch.Tensor:
    """β of `calibrate`, differentiable in `sq` through the calibration (implicit function theorem).

    A Newton step from the detached bisection solution has β's value and its exact gradient (docs/maps.md),
    so L-BFGS, whose line search assumes exact gradients, sees a point re-calibrate its own bandwidth.
    """
    beta0 = torch.as_tensor(calibrate(sq.detach().double().numpy(), perplexity)[0], dtype=sq.dtype)
    shifted = sq - sq.min(1, keepdim=True).values.detach()
    p = torch.softmax(-shifted * beta0[:, None], dim=1)
    entropy = torch.logsumexp(-shifted * beta0[:, None], dim=1) + beta0 * (p * shifted).sum(1)
    mean = (p * shifted).sum(1, keepdim=True)
    slope = (-beta0 * (p * (shifted - mean) ** 2).sum(1)).detach()
    # equidistant neighbours (the entropy does not depend on β), or so nearly that β stopped at its ceiling short of
    # the target: a Newton step from there would leap orders of magnitude, so β stays where the map's rows have it
    ceiling = _beta_ceiling(sq.detach().double().min(1).values.numpy())
    flat = (slope == 0) | torch.as_tensor(beta0.detach().double().numpy() >= ceiling)
    step = (entropy - math.log(perplexity)) / torch.where(flat, torch.ones_like(slope), slope)
    return beta0 - torch.where(flat, torch.zeros_like(step), step)


def conditionals(
    units: Mapping[str, np.ndarray], weights: Mapping[str, float], perplexity: float, k: int
) -> tuple[np.ndarray, np.ndarray, Any]:
    """β and S of every point and the sparse conditional affinities p_{j|i} over its k nearest neighbours."""
    from scipy import sparse

    n = len(next(iter(units.values())))
    index, dist = neighbours(units, weights, k)
    sq = dist**2
    betas, row_sums = calibrate(sq, perplexity)
    cond = np.exp(-sq * betas[:, None]) / row_sums[:, None]
    conditional = sparse.csr_matrix((cond.ravel(), (np.repeat(np.arange(n), k), index.ravel())), shape=(n, n))
    return betas, row_sums, conditional


def joint(conditional: Any) -> Any:
    """The symmetric joint affinities p_ij = (p_{j|i} + p_{i|j}) / 2n."""
    return (conditional + conditional.T) / (2 * conditional.shape[0])


def kernel_sum(coords: np.ndarray, chunk: int = 2048) -> float:
    """Z = Σ_{k≠l} (1 + |y_k − y_l|²)^-1, the Student-t normaliser of the fixed map."""
    total = 0.0
    for start in range(0, len(coords), chunk):
        block = coords[start : start + chunk]
        sq = ((block[:, None, :] - coords[None, :, :]) ** 2).sum(-1)
        total += float((1.0 / (1.0 + sq)).sum()) - len(block)
    return total


def kernel_to(y: np.ndarray, coords: np.ndarray, chunk: int) -> float:
    """Σ over new points y and map points j of (1 + |y − y_j|²)^-1, `chunk` new points at a time."""
    total = 0.0
    for start in range(0, len(y), chunk):
        block = y[start : start + chunk]
        total += float((1.0 / (1.0 + ((block[:, None, :] - coords[None]) ** 2).sum(-1))).sum())
    return total


def layout_stats(conditional: Any, coords: np.ndarray) -> dict[str, Any]:
    """Z and row_kl_j = Σ_i p_{i|j} log(p_ij / q_ij): the first-order effect of renormalising row j."""
    z_sum = kernel_sum(coords)
    coo = conditional.tocoo()
    sq = ((coords[coo.row] - coords[coo.col]) ** 2).sum(1)
    log_q = -np.log1p(sq) - np.log(z_sum)
    p_joint = np.asarray(joint(conditional)[coo.row, coo.col]).ravel()
    terms = coo.data * (np.log(np.clip(p_joint, 1e-300, None)) - log_q)
    row_kl = np.bincount(coo.row, weights=terms, minlength=conditional.shape[0])
    return {"z_sum": z_sum, "row_kl": row_kl}


def new_point_affinities(
    sq: torch.Tensor, betas: np.ndarray, row_sums: np.ndarray, perplexity: float, k: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """p_{new,j} [m, n] of m new points from their squared distances to the map, and p_{j|new}.

    `betas` and `row_sums` are the map points' own β and S. Differentiable in `sq`, each new point's own
    bandwidth included (`calibrated_beta` over its k nearest map points).
    """
    n = sq.shape[1]
    near = torch.topk(sq.detach(), k, dim=1, largest=False).indices
    near_sq = torch.gather(sq, 1, near)
    beta = calibrated_beta(near_sq, perplexity)
    cond = torch.softmax(-near_sq * beta[:, None], dim=1)
    p_new_given = torch.zeros_like(sq).scatter(1, near, cond)
    v = torch.exp(-sq * torch.as_tensor(betas, dtype=sq.dtype))
    p_given_new = v / (torch.as_tensor(row_sums, dtype=sq.dtype) + v)
    return (p_new_given + p_given_new) / (2 * (n + 1)), p_given_new


def new_point_stats(
    sq: np.ndarray,
    y: np.ndarray,
    coords: np.ndarray,
    betas: np.ndarray,
    row_sums: np.ndarray,
    perplexity: float,
    k: int,
    z_sum: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """β, S and row_kl of new points at `y` with squared distances `sq` [m, n] to the map (at `coords`, with
    `betas`, `row_sums` and normaliser `z_sum`), from their k nearest map points, as `layout_stats` has them."""
    near = np.argpartition(sq, k - 1, axis=1)[:, :k]
    near_sq = np.take_along_axis(sq, near, 1)
    new_betas, new_row_sums = calibrate(near_sq, perplexity)
    given_new = np.exp(-near_sq * new_betas[:, None]) / new_row_sums[:, None]
    v = np.exp(-near_sq * betas[near])
    new_given = v / (row_sums[near] + v)
    p_joint = (given_new + new_given) / (2 * (len(coords) + 1))
    log_q = -np.log1p(((y[:, None, :] - coords[near]) ** 2).sum(-1)) - np.log(z_sum)
    row_kl = (given_new * (np.log(np.clip(p_joint, 1e-300, None)) - log_q)).sum(1)
    return new_betas, new_row_sums, row_kl


def place_loss(y: torch.Tensor, p: torch.Tensor, fixed: torch.Tensor, z_sum: float) -> torch.Tensor:
    """Σ over new points at `y` [m, 2] of the t-SNE KL restricted to their coordinates (constants dropped):
    attraction to their affinities `p` [m, n] to the map at `fixed`, repulsion through the normaliser Z."""
    w = 1.0 / (1.0 + ((y[:, None, :] - fixed[None]) ** 2).sum(-1))
    return (-2 * (p * torch.log(w)).sum(1) + torch.log(z_sum + 2 * w.sum(1))).sum()


def explain_loss(
    p: torch.Tensor, p_given_new: torch.Tensor, log_q: torch.Tensor, row_weight: torch.Tensor
) -> torch.Tensor:
    """KL(P‖Q) of the map with a new point of affinities `p` and `p_given_new` [n] and log q_{new,j} `log_q`, less the
    first-order effect of renormalising the map's rows (`row_weight` = (row_kl + 1) / (n + 1)), which removes the
    trivial optimum of pushing the point away from everyone."""
    kl = 2 * (p * (torch.log(p.clamp_min(1e-300)) - log_q)).sum()
    return kl - (row_weight * p_given_new).sum()
