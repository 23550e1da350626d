"""Write `examples/demo_corpus.jsonl`: the demo's corpus, synthetic and reproducible (no real abstracts).

Each abstract belongs to one of six fields (its `topic` label) and is assembled from that field's
vocabulary: a background sentence, an aim, a design, one or two results, a conclusion. Half of the
papers are interdisciplinary: they borrow their setting, method, a second result and their stakes
from another field (a cardiology paper analysed with a convolutional network on clinical text
corpora), so topics overlap the way real fields do and a nearest-neighbour or title→abstract figure
is not saturated. Every field also shares generic study-design sentences, and abstracts vary in
length (5 to 8 sentences). The same seed always gives the same file:

    python examples/make_demo_corpus.py            # 360 abstracts, seed 13
    python examples/make_demo_corpus.py --count 1000 --out /tmp/bigger.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Field:
    """One field's vocabulary: what it studies, where, how, what it measures and finds."""

    subjects: list[str]
    settings: list[str]
    methods: list[str]
    measures: list[str]
    effects: list[str]
    stakes: list[str]


FIELDS: dict[str, Field] = {
    "cardiology": Field(
        subjects=[
            "atrial fibrillation",
            "heart failure with preserved ejection fraction",
            "hypertension",
            "coronary artery calcification",
            "ventricular arrhythmia",
            "aortic stenosis",
            "myocardial infarction",
            "cardiac amyloidosis",
        ],
        settings=[
            "older adults in primary care",
            "patients discharged after cardiac surgery",
            "a multi-ethnic community cohort",
            "emergency department admissions",
            "rural clinics",
        ],
        methods=[
            "a randomised controlled trial",
            "a prospective registry",
            "ambulatory ECG monitoring",
            "cardiac magnetic resonance imaging",
            "echocardiographic follow-up",
            "a pragmatic cluster trial",
        ],
        measures=[
            "left ventricular ejection fraction",
            "time to first hospitalisation",
            "systolic blood pressure",
            "the incidence of stroke",
            "six-minute walk distance",
            "all-cause mortality",
        ],
        effects=[
            "fell by roughly a quarter",
            "improved in the intervention arm",
            "did not differ between groups",
            "was strongly associated with age",
            "rose steadily over follow-up",
        ],
        stakes=[
            "earlier anticoagulation",
            "guideline-directed therapy",
            "screening programmes for arrhythmia",
            "the design of cardiac rehabilitation",
        ],
    ),
    "oncology": Field(
        subjects=[
            "metastatic colorectal cancer",
            "triple-negative breast cancer",
            "non-small cell lung cancer",
            "glioblastoma",
            "acute myeloid leukaemia",
            "pancreatic ductal adenocarcinoma",
            "melanoma brain metastases",
            "ovarian cancer recurrence",
        ],
        settings=[
            "patients receiving first-line chemotherapy",
            "a national cancer registry",
            "tumour samples from three academic centres",
            "patient-derived xenografts",
            "a phase II cohort",
        ],
        methods=[
            "whole-exome sequencing of tumour biopsies",
            "a single-arm phase II trial",
            "circulating tumour DNA profiling",
            "single-cell RNA sequencing",
            "immunohistochemistry panels",
        ],
        measures=[
            "progression-free survival",
            "objective response rate",
            "tumour mutational burden",
            "overall survival",
            "minimal residual disease",
            "T-cell infiltration",
        ],
        effects=[
            "was prolonged by several months",
            "predicted response to immunotherapy",
            "correlated with resistance",
            "was lower than expected",
            "identified a high-risk subgroup",
        ],
        stakes=[
            "treatment stratification",
            "biomarker-guided trials",
            "targeted therapy selection",
            "surveillance after resection",
        ],
    ),
    "neuroscience": Field(
        subjects=[
            "hippocampal place cells",
            "dopaminergic signalling in the striatum",
            "sleep spindles",
            "cortical oscillations during working memory",
            "synaptic pruning in adolescence",
            "motor learning in the cerebellum",
            "neuroinflammation after stroke",
            "auditory prediction errors",
        ],
        settings=[
            "freely moving mice",
            "healthy adult volunteers",
            "patients with temporal lobe epilepsy",
            "a longitudinal adolescent cohort",
            "organotypic slice cultures",
        ],
        methods=[
            "two-photon calcium imaging",
            "high-density electrophysiological recordings",
            "functional magnetic resonance imaging",
            "optogenetic silencing",
            "magnetoencephalography",
        ],
        measures=[
            "firing-rate stability",
            "theta-gamma coupling",
            "behavioural accuracy",
            "grey-matter volume",
            "reaction times",
            "spike timing precision",
        ],
        effects=[
            "depended on prior experience",
            "was disrupted after lesions",
            "increased with task difficulty",
            "predicted later recall",
            "declined with age",
        ],
        stakes=[
            "models of memory consolidation",
            "treatments for cognitive decline",
            "closed-loop stimulation",
            "theories of predictive coding",
        ],
    ),
    "ecology": Field(
        subjects=[
            "invasive knotweed",
            "pollinator decline",
            "coral reef bleaching",
            "soil microbial communities",
            "predator reintroduction",
            "freshwater mussel populations",
            "alpine plant range shifts",
            "seed dispersal by birds",
        ],
        settings=[
            "riparian corridors in three catchments",
            "tropical island reefs",
            "temperate grasslands",
            "a long-term forest plot network",
            "urban green spaces",
        ],
        methods=[
            "a field experiment with paired plots",
            "eDNA metabarcoding",
            "camera-trap surveys",
            "a twenty-year resurvey of historical transects",
            "species distribution modelling",
        ],
        measures=[
            "species richness",
            "nitrogen mineralisation rates",
            "recruitment of native seedlings",
            "visitation rates",
            "population growth rates",
            "functional diversity",
        ],
        effects=[
            "dropped sharply at invaded sites",
            "recovered within five years",
            "varied with elevation",
            "was buffered by habitat heterogeneity",
            "declined along the disturbance gradient",
        ],
        stakes=[
            "restoration planning",
            "conservation priorities",
            "the management of invasive species",
            "protected-area design",
        ],
    ),
    "materials_science": Field(
        subjects=[
            "perovskite solar cells",
            "solid-state lithium electrolytes",
            "high-entropy alloys",
            "two-dimensional transition metal dichalcogenides",
            "self-healing polymers",
            "metal-organic frameworks for carbon capture",
            "thermoelectric tellurides",
            "flexible strain sensors",
        ],
        settings=[
            "thin films grown by chemical vapour deposition",
            "ball-milled powders",
            "devices cycled at elevated temperature",
            "samples annealed under argon",
            "printed electrodes",
        ],
        methods=[
            "in situ X-ray diffraction",
            "density functional theory calculations",
            "transmission electron microscopy",
            "impedance spectroscopy",
            "accelerated ageing tests",
        ],
        measures=[
            "power conversion efficiency",
            "ionic conductivity",
            "fracture toughness",
            "capacity retention",
            "carrier mobility",
            "CO2 uptake",
        ],
        effects=[
            "doubled after surface passivation",
            "remained stable for a thousand cycles",
            "was limited by grain boundaries",
            "improved with dopant concentration",
            "degraded under humidity",
        ],
        stakes=[
            "scalable manufacturing",
            "safer batteries",
            "lightweight structural parts",
            "low-cost energy harvesting",
        ],
    ),
    "machine_learning": Field(
        subjects=[
            "contrastive representation learning",
            "out-of-distribution detection",
            "graph neural networks",
            "federated learning under data heterogeneity",
            "calibration of deep classifiers",
            "retrieval-augmented language models",
            "reinforcement learning from human feedback",
            "sparse mixture-of-experts models",
        ],
        settings=[
            "standard image benchmarks",
            "clinical text corpora",
            "molecular property datasets",
            "simulated robotic control tasks",
            "multilingual question answering",
        ],
        methods=[
            "a convolutional network trained with data augmentation",
            "a transformer fine-tuned end to end",
            "a Bayesian ensemble",
            "gradient-boosted trees with engineered features",
            "a self-supervised pre-training objective",
        ],
        measures=[
            "top-1 accuracy",
            "expected calibration error",
            "area under the ROC curve",
            "sample efficiency",
            "retrieval recall at ten",
            "inference latency",
        ],
        effects=[
            "improved over strong baselines",
            "collapsed under distribution shift",
            "scaled with model size",
            "matched supervised training with a tenth of the labels",
            "was sensitive to the learning rate",
        ],
        stakes=[
            "reliable deployment",
            "label-efficient training",
            "trustworthy model evaluation",
            "resource-constrained inference",
        ],
    ),
}

GENERIC_DESIGN = [
    "Data were collected between 2015 and 2021 and analysed with mixed-effects models.",
    "All analyses were pre-registered, and sensitivity analyses tested the main assumptions.",
    "Missing values were handled by multiple imputation.",
    "Results were replicated in an independent validation sample.",
    "Uncertainty was quantified with bootstrap confidence intervals.",
]


def sentence(rng: random.Random, own: Field, other: Field | None) -> dict[str, str]:
    """The parts of one abstract; an interdisciplinary paper takes its setting, method, second result and
    stakes from `other` (its subject, main measure and finding stay in its own field, which is its label)."""
    source = other or own
    return {
        "subject": rng.choice(own.subjects),
        "setting": rng.choice(source.settings),
        "method": rng.choice(source.methods),
        "measure": rng.choice(own.measures),
        "second": rng.choice(source.measures),
        "effect": rng.choice(own.effects),
        "effect2": rng.choice(source.effects),
        "stake": rng.choice(source.stakes),
    }


def abstract(rng: random.Random, own: Field, other: Field | None) -> tuple[str, str]:
    p = sentence(rng, own, other)
    background = rng.choice(
        [
            f"{p['subject'].capitalize()} remains poorly understood despite its importance for {p['stake']}.",
            f"Little is known about how {p['subject']} develops in {p['setting']}.",
            f"Evidence on {p['subject']} is inconsistent, and most studies are small.",
        ]
    )
    aim = rng.choice(
        [
            f"We asked whether {p['measure']} differs in {p['setting']}.",
            f"This study examined {p['subject']} in {p['setting']}.",
            f"Here we test the link between {p['subject']} and {p['measure']}.",
        ]
    )
    design = rng.choice(
        [
            f"We used {p['method']} to characterise {p['setting']}.",
            f"Using {p['method']}, we followed {p['setting']} over two years.",
            f"The analysis combined {p['method']} with measurements of {p['measure']}.",
        ]
    )
    results = [f"{p['measure'].capitalize()} {p['effect']}."]
    if rng.random() < 0.6:
        results.append(f"In addition, {p['second']} {p['effect2']}.")
    conclusion = rng.choice(
        [
            f"These findings have implications for {p['stake']}.",
            f"Our results suggest that {p['subject']} should inform {p['stake']}.",
            f"Further work is needed before these results can guide {p['stake']}.",
        ]
    )
    extra = rng.sample(GENERIC_DESIGN, k=rng.randint(0, 2))
    text = " ".join([background, aim, design, *extra, *results, conclusion])
    title = rng.choice(
        [
            f"{p['subject'].capitalize()} in {p['setting']}: {p['measure']} {p['effect']}",
            f"{p['method'].capitalize()} of {p['subject']}",
            f"{p['measure'].capitalize()} and {p['subject']}: evidence from {p['method']}",
        ]
    )
    return title, text


COUNT, SEED = 360, 13  # the shipped corpus


def papers(count: int, seed: int, interdisciplinary: float = 0.5) -> list[tuple[dict[str, str], str]]:
    """Each paper's corpus row and the field it borrows from ("" for a single-field paper), in file order.

    The borrowed field is not written to the corpus (a real corpus does not know it); it is what
    `examples/trace_demo_labels.py` splits label agreement by.
    """
    rng = random.Random(seed)
    names = sorted(FIELDS)
    out = []
    for i in range(count):
        topic = names[i % len(names)]
        borrowed = rng.choice([n for n in names if n != topic]) if rng.random() < interdisciplinary else ""
        title, text = abstract(rng, FIELDS[topic], FIELDS[borrowed] if borrowed else None)
        out.append(({"id": f"synth-{i + 1:04d}", "title": title, "abstract": text, "topic": topic}, borrowed))
    rng.shuffle(out)
    return out


def build(count: int, seed: int) -> list[dict[str, str]]:
    return [row for row, _ in papers(count, seed)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=COUNT)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("demo_corpus.jsonl"))
    args = parser.parse_args()
    rows = build(args.count, args.seed)
    args.out.write_text("".join(json.dumps(row) + "\n" for row in rows))
    print(f"wrote {len(rows)} abstracts in {len(FIELDS)} fields to {args.out}")


if __name__ == "__main__":
    main()
