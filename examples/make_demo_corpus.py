"""Write `examples/demo_corpus.jsonl`: the demo's corpus, synthetic and reproducible (no real abstracts).

360 abstracts, 60 in each of six fields (their `topic` label), so that the demo ships a literature that reads like one
without shipping anyone's text. Each paper is written from one research topic of `TOPIC_BANK`: a narrow question with
its own populations or systems, methods, measures, findings and implications, filled in with seeded choices and
numbers. About half the topics are interdisciplinary the way real fields combine (deep learning on the ECG,
computational pathology, cardio- and neuro-oncology, neural network models of cortex, materials for stents, neural
electrodes and batteries, heart rate of wild animals), and topics on one theme share background sentences, so fields
overlap in vocabulary and MiniLM's 10-NN field accuracy on the corpus is about 0.89, not 1.0. Label rule: a paper
carries the field whose question it answers and whose readers it addresses (AI-ECG screening in primary care is
cardiology; a pre-training method benchmarked on ECG datasets is machine learning); the other field is its partner.
The same seed always gives the same file:

    python examples/make_demo_corpus.py            # 360 abstracts, seed 13
    python examples/make_demo_corpus.py --count 1000 --out /tmp/bigger.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

FIELDS = ("cardiology", "ecology", "machine_learning", "materials_science", "neuroscience", "oncology")


@dataclass(frozen=True)
class Topic:
    """One research question: its label field, its partner field ("" for a single-field topic), its slots."""

    field: str
    partner: str
    name: str
    slots: dict[str, list[str]]


@dataclass(frozen=True)
class Style:
    """How a field words the sentences its topics do not supply: aims, analyses, limitations, implications."""

    aims: list[str]
    analyses: list[str]
    limitations: list[str]
    implications: list[str]


# The topic bank: `== field [+ partner] | name` opens a topic, `key: a | b` adds alternatives to a slot (keys repeat;
# an indented line continues the one above). Every alternative fits every other slot of its topic, which is what keeps
# the papers plausible. Keys: `REQUIRED`; optional `analysis`, `limitation`, `conclusion` replace the field's.
TOPIC_BANK = """
== cardiology | screening for atrial fibrillation
subject: subclinical atrial fibrillation | screen-detected atrial fibrillation | undiagnosed atrial fibrillation
who: adults aged 75 years or older in primary care | older adults with hypertension
who: adults aged 65 years or older with at least one stroke risk factor
method: a 14-day continuous ECG patch | twice-daily handheld single-lead ECG recordings | implantable loop recorders
measure: the incidence of ischaemic stroke | the rate of oral anticoagulant initiation | major bleeding
aim: to determine whether systematic screening for atrial fibrillation reduces stroke in {who}
aim: to estimate how much {subject} is missed by opportunistic pulse palpation in {who}
background: Atrial fibrillation is often asymptomatic, and its first presentation may be an ischaemic stroke.
background: Population screening for atrial fibrillation is recommended by some guidelines, but its benefit on hard
    outcomes is debated.
background: Short episodes of {subject} are common in older adults, yet the stroke risk they carry is uncertain.
background: Smartwatches can flag atrial fibrillation from pulse or single-lead ECG recordings, but motion artefacts
    cause false alarms.
gap: whether screening prevents strokes remains uncertain
gap: the arrhythmia burden that justifies anticoagulation is not known
design: We randomly assigned {n} {who} to screening with {method} or to usual care and followed them for a median of
    {years} years.
design: In this prospective cohort, {n} {who} underwent screening with {method} at {centres} general practices.
design: We analysed {n} {who} enrolled in a pragmatic screening programme that used {method}.
finding: Screening detected new atrial fibrillation in {spct_hi}% of participants, compared with {spct_lo}% under usual
    care.
finding: The hazard ratio for ischaemic stroke or systemic embolism with screening was {hr}.
finding: Episodes lasting longer than 24 hours were associated with stroke (hazard ratio {hr_up}), whereas shorter
    episodes were not.
finding: Oral anticoagulation was started in {pct_hi}% of screen-detected cases, and major bleeding occurred in
    {spct_lo}% per year.
implication: targeted screening of older adults | anticoagulation decisions in device-detected arrhythmia
implication: national screening policy for atrial fibrillation
title: {subject} in {who}: a screening study with {method} | Systematic screening for atrial fibrillation in {who}
title: Stroke risk of {subject} in {who}

== cardiology | SGLT2 inhibitors in heart failure with preserved ejection fraction
subject: heart failure with preserved ejection fraction
subject: heart failure with mildly reduced or preserved ejection fraction
who: patients hospitalised for heart failure with an ejection fraction of 50% or more
who: ambulatory patients with HFpEF and elevated natriuretic peptides | older women with HFpEF and obesity
method: empagliflozin | dapagliflozin | sodium-glucose cotransporter 2 inhibition
measure: the composite of cardiovascular death or worsening heart failure
measure: the Kansas City Cardiomyopathy Questionnaire score
measure: peak oxygen uptake | NT-proBNP concentration
aim: to test whether {method} improves outcomes in {who}
aim: to assess the effect of {method} on symptoms and exercise capacity in {who}
background: Heart failure with preserved ejection fraction accounts for about half of all heart failure and has few
    proven therapies.
background: Patients with HFpEF are typically older, often female and frequently obese, with multiple comorbidities.
gap: the effect of treatment on symptoms and exercise capacity is uncertain
gap: the effect of {method} on functional capacity is uncertain
design: In this double-blind trial, {n} {who} were randomly assigned to {method} or placebo and followed for a median
    of {years} years.
design: We randomised {n_med} {who} at {centres} centres to {method} or placebo for {weeks} weeks.
finding: The primary composite outcome occurred in {pct_hi}% of the placebo group and {pct_lo}% of the treatment group
    (hazard ratio {hr}).
finding: Peak oxygen uptake increased by {x1} mL/kg/min relative to placebo ({p}).
finding: The Kansas City Cardiomyopathy Questionnaire summary score improved by {x1} points more than with placebo
    ({p}).
finding: NT-proBNP fell by {rel}% at {weeks} weeks, and the effect was consistent across ejection-fraction subgroups.
implication: the treatment of heart failure with preserved ejection fraction
implication: symptom-focused care of older patients with HFpEF
title: {method} in {who} | Effect of {method} on {measure} in {subject}
title: {method} and functional capacity in {subject}: a randomised trial

== cardiology | team-based control of hypertension
subject: uncontrolled hypertension | resistant hypertension | hypertension in underserved communities
who: adults with uncontrolled hypertension attending community clinics
who: patients with hypertension taking three or more drugs
who: Black adults with hypertension recruited through barbershops
method: home blood pressure telemonitoring with pharmacist-led titration | nurse-led medication titration
method: a community health worker programme with stepped drug titration
measure: office systolic blood pressure | 24-hour ambulatory systolic blood pressure
measure: the proportion reaching target blood pressure
aim: to evaluate whether {method} lowers blood pressure in {who}
aim: to compare {method} with usual care in {who}
background: Hypertension is the leading modifiable risk factor for cardiovascular disease, yet fewer than half of
    treated patients reach target.
background: Therapeutic inertia and poor adherence are common reasons why blood pressure stays high despite treatment.
gap: scalable strategies to improve control outside specialist clinics are lacking
gap: the durability of blood pressure reductions beyond one year is unknown
design: In this cluster-randomised trial across {centres} sites, {n_med} {who} received {method} or usual care.
design: We enrolled {n_med} {who} and randomly assigned them to {method} or usual care, with follow-up at 6 and 12
    months.
finding: At {weeks} weeks, office systolic blood pressure fell by {mmhg} mm Hg more in the intervention group than with
    usual care ({p}).
finding: Target blood pressure was reached by {pct_hi}% of intervention patients and {pct_lo}% of controls.
finding: The reduction in 24-hour ambulatory systolic pressure was {mmhg} mm Hg, with no excess of hypotension or acute
    kidney injury.
implication: the organisation of hypertension care in primary practice
implication: blood pressure control in underserved populations
title: {method} for {subject} in {who} | Blood pressure control with {method}: a randomised trial
title: {subject}: {method} versus usual care

== cardiology | high-sensitivity troponin to rule out myocardial infarction
subject: suspected acute myocardial infarction | suspected non-ST-elevation myocardial infarction | acute chest pain
who: patients presenting with chest pain to the emergency department | adults with suspected acute coronary syndrome
who: older patients presenting with chest pain
method: a high-sensitivity troponin T 0/1-hour algorithm
method: a single high-sensitivity troponin I measurement at presentation
method: a 0/2-hour high-sensitivity troponin pathway
measure: the negative predictive value for myocardial infarction | 30-day major adverse cardiac events | length of stay
aim: to evaluate the safety of {method} in {who}
aim: to determine whether {method} allows safe early discharge of {who}
background: Chest pain is one of the most common reasons for emergency department visits, but few patients have
    myocardial infarction.
background: High-sensitivity troponin assays allow myocardial infarction to be ruled out within hours of presentation.
gap: the safety of rapid rule-out in older patients is uncertain
gap: how the pathways perform in routine care is not well known
design: We prospectively enrolled {n} {who} at {centres} hospitals and applied {method}.
design: In this stepped-wedge trial at {centres} hospitals, {n} {who} were managed with {method} or standard serial
    testing.
finding: The pathway ruled out myocardial infarction in {pct_hi}% of patients with a negative predictive value of
    99.{d}%.
finding: Major adverse cardiac events at 30 days occurred in {spct_lo}% of patients discharged after a rule-out result.
finding: Median length of stay in the emergency department fell by {x1} hours, without an increase in missed
    infarctions.
implication: early discharge pathways for chest pain | the use of high-sensitivity troponin in emergency care
title: {method} in {who} | Safety of {method} for {subject} | Rapid rule-out of {subject} with {method}

== cardiology | transcatheter aortic valve implantation
subject: severe aortic stenosis | symptomatic severe aortic stenosis at low surgical risk | bicuspid aortic stenosis
who: patients aged 70 years or older with severe aortic stenosis
who: low-risk patients referred for aortic valve replacement
who: patients with bicuspid aortic valves
method: transcatheter aortic valve implantation | implantation of a self-expanding transcatheter valve | implantation
    of a balloon-expandable transcatheter valve
measure: the composite of death, stroke or rehospitalisation | new permanent pacemaker implantation
measure: paravalvular regurgitation
aim: to compare {method} with surgical aortic valve replacement in {who}
aim: to assess two-year outcomes of {method} and surgery in {who}
background: Transcatheter aortic valve implantation has become an alternative to surgery across the spectrum of
    surgical risk.
background: Aortic stenosis is the most common valvular heart disease requiring intervention in older adults.
gap: long-term valve durability in younger, lower-risk patients remains uncertain
gap: data in bicuspid anatomy are limited
design: We randomly assigned {n_med} {who} to {method} or surgical valve replacement at {centres} centres.
design: This registry compared {n} {who} who underwent {method} or surgery between 2016 and 2022, with propensity
    matching.
finding: At two years, the primary composite outcome occurred in {pct_lo}% after transcatheter and {pct_hi}% after
    surgical replacement.
finding: A new permanent pacemaker was required in {pct_lo}% of transcatheter patients, most often after deeper valve
    implantation.
finding: Moderate or severe paravalvular regurgitation was rare ({spct_lo}%), and mean gradients remained below 12 mm
    Hg.
implication: the choice of valve replacement in lower-risk patients | heart team decisions for aortic stenosis
title: {method} versus surgery in {who} | Two-year outcomes of {method} for {subject}
title: Pacemaker implantation after {method} in {who}

== cardiology | transthyretin amyloid cardiomyopathy
subject: transthyretin amyloid cardiomyopathy | wild-type transthyretin cardiac amyloidosis
subject: undiagnosed cardiac amyloidosis
who: patients with heart failure and increased left ventricular wall thickness
who: men with heart failure and prior carpal tunnel surgery | older patients with unexplained heart failure symptoms
method: technetium-99m pyrophosphate scintigraphy | bone scintigraphy with serum free light chain testing
method: cardiac magnetic resonance with extracellular volume mapping
measure: the prevalence of transthyretin cardiomyopathy | all-cause mortality
measure: the time from symptom onset to diagnosis
aim: to estimate the prevalence of {subject} among {who}
aim: to evaluate a non-biopsy diagnostic pathway based on {method}
background: Transthyretin amyloid cardiomyopathy is increasingly recognised now that disease-modifying therapies such
    as tafamidis exist.
background: Cardiac amyloidosis is underdiagnosed, and patients often see several specialists before the diagnosis is
    made.
gap: how many cases are missed in routine heart failure care is unknown
gap: the prognostic value of imaging markers is unclear
design: We screened {n_med} consecutive {who} at {centres} referral centres with {method}.
design: A prospective cohort of {n_med} {who} underwent {method} and was followed for a median of {years} years.
finding: Transthyretin cardiomyopathy was identified in {pct_lo}% of screened patients, rising to {pct_hi}% among men
    over 80.
finding: The median delay from the first cardiac symptoms to diagnosis was {x1} years.
finding: Patients with the diagnosis had higher mortality (hazard ratio {hr_up}) after adjustment for age and
    NT-proBNP.
implication: earlier referral for disease-modifying therapy
implication: screening for cardiac amyloidosis in heart failure clinics
title: {subject} among {who} | A non-biopsy pathway for {subject} based on {method}
title: Prevalence and prognosis of {subject} among {who}

== cardiology | LDL cholesterol lowering after acute coronary syndrome
subject: early intensive LDL cholesterol lowering | LDL cholesterol targets after acute coronary syndrome
who: patients hospitalised for acute coronary syndrome
who: patients with recent myocardial infarction and high LDL cholesterol
method: in-hospital initiation of a PCSK9 inhibitor | high-intensity statin therapy combined with ezetimibe
method: the small interfering RNA inclisiran
measure: LDL cholesterol at eight weeks | coronary plaque volume on intravascular ultrasound
measure: major adverse cardiovascular events
aim: to test whether {method} achieves guideline LDL targets faster in {who}
aim: to assess the effect of {method} on coronary plaque in {who}
background: Guidelines recommend LDL cholesterol below 1.4 mmol/L after acute coronary syndrome, but most patients do
    not reach it.
background: Lowering LDL cholesterol reduces cardiovascular events in proportion to the absolute reduction achieved.
gap: whether starting combination therapy in hospital improves target attainment is uncertain
gap: the effect on plaque composition early after an event is not well defined
design: We randomly assigned {n_med} {who} to {method} or standard statin therapy, starting within 24 hours of
    admission.
design: In this open-label trial at {centres} hospitals, {n_med} {who} received {method} or usual care.
finding: LDL cholesterol fell by {x2}% more with the intervention, and {pct_hi}% of patients reached target versus
    {pct_lo}%.
finding: Percent atheroma volume decreased by {x1} percentage points on serial intravascular ultrasound ({p}).
finding: Major adverse cardiovascular events occurred in {spct_lo}% versus {spct_hi}% of patients at one year (hazard
    ratio {hr}).
implication: lipid-lowering strategies after acute coronary syndrome
implication: early combination therapy in secondary prevention
title: {method} in {who} | {subject} with {method}
title: Coronary plaque regression with {method} in {who}

== cardiology + machine_learning | AI-enabled ECG screening for low ejection fraction
subject: an artificial intelligence-enabled electrocardiogram | a deep learning model applied to the 12-lead ECG
subject: ECG-based deep learning screening for low ejection fraction
who: adults without known heart failure in primary care | patients having routine ECGs in outpatient clinics
who: patients with new dyspnoea referred for echocardiography
method: a convolutional neural network trained on 12-lead ECGs paired with echocardiograms
method: a deep neural network that flags an ejection fraction of 35% or less from a single ECG
measure: new diagnoses of left ventricular systolic dysfunction
measure: the area under the receiver operating characteristic curve
measure: echocardiography referral rates
aim: to evaluate whether {subject} increases the diagnosis of left ventricular systolic dysfunction in {who}
aim: to validate {subject} externally in {who}
background: Left ventricular systolic dysfunction is often asymptomatic, and treatment started early improves survival.
background: Deep learning models can detect a low ejection fraction from a standard ECG, but evidence from routine care
    is limited.
background: Deep networks classify arrhythmias from the electrocardiogram accurately when large labelled datasets are
    available.
background: Deep learning on the electrocardiogram can detect arrhythmias and a reduced ejection fraction, but labels
    are scarce.
gap: their performance across age, sex and ethnic groups has rarely been examined
gap: whether clinicians act on algorithm alerts is unknown
gap: whether pre-trained representations transfer across devices and populations is unclear
design: In a cluster-randomised trial, {centres} practices caring for {n} {who} received alerts from {method} or usual
    care.
design: We applied {method} retrospectively to ECGs from {n} {who}, with echocardiography within 30 days as the
    reference.
finding: The model identified an ejection fraction of 35% or less with an area under the curve of {auc} and a
    sensitivity of {pct_hi}%.
finding: New diagnoses of systolic dysfunction rose from {spct_lo}% to {spct_hi}% in practices receiving alerts.
finding: Performance was similar in women and men, but calibration drifted in patients with bundle branch block.
implication: ECG-based screening for heart failure in primary care
implication: the integration of algorithmic alerts into clinical workflows
method: a self-supervised ECG transformer fine-tuned on echocardiography labels
finding: Performance held across ECG machines from different manufacturers and on single-lead recordings from
    smartwatches.
finding: Fine-tuning on a few hundred local ECGs restored performance at a hospital where the model had first
    underperformed.
design: We trained {method} on {n} paired ECGs and echocardiograms and tested it on ECGs from {k} external hospitals.
title: {subject} in {who} | Screening for low ejection fraction with {method}
title: External validation of {subject} in {who}

== cardiology + oncology | cardiotoxicity of cancer therapy
subject: anthracycline-related cardiotoxicity | cancer therapy-related cardiac dysfunction
subject: left ventricular dysfunction during cancer therapy
who: women receiving anthracycline chemotherapy for early breast cancer | young adults treated for Hodgkin lymphoma
who: patients with HER2-positive breast cancer on trastuzumab
method: speckle-tracking echocardiography of global longitudinal strain | serial high-sensitivity troponin measurements
method: cardiac magnetic resonance imaging
measure: a fall in left ventricular ejection fraction of more than 10 points | global longitudinal strain
measure: interruption of cancer therapy
aim: to determine whether {method} detects {subject} early in {who}
aim: to identify which {who} develop {subject} during the first year of treatment
background: Anthracyclines and HER2-targeted therapies improve survival in breast cancer and lymphoma but can impair
    left ventricular function.
background: Cardio-oncology services aim to protect the heart without compromising effective cancer treatment.
background: HER2-targeted therapy has transformed the prognosis of HER2-positive breast cancer but can cause reversible
    cardiac dysfunction.
gap: the best strategy to detect subclinical dysfunction is not established
gap: the value of routine cardiac surveillance in low-risk patients is unclear
gap: whether treatment can continue safely after a mild fall in ejection fraction is uncertain
design: This prospective cohort followed {n_med} {who} with {method} before each cycle and at 12 months.
design: We studied {n_med} {who} at {centres} cancer centres, using {method} at baseline, during treatment and after
    one year.
finding: Cancer therapy-related cardiac dysfunction developed in {pct_lo}% of patients, and chemotherapy or trastuzumab
    was interrupted in {spct_hi}%.
finding: A relative fall in global longitudinal strain of more than 15% preceded the decline in ejection fraction in
    {pct_hi}% of cases.
finding: Troponin elevation after the second cycle predicted later dysfunction (hazard ratio {hr_up}).
implication: cardiac surveillance during cancer treatment | cardioprotective strategies in cardio-oncology
title: {method} and {subject} in {who} | Early detection of {subject} in {who}
title: {subject}: a prospective cohort of {who}

== cardiology + materials_science | ultrathin-strut biodegradable-polymer stents
subject: ultrathin-strut drug-eluting stents | biodegradable-polymer sirolimus-eluting stents
subject: ultrathin cobalt-chromium stents with a biodegradable polymer coating
who: patients undergoing percutaneous coronary intervention | all-comers with chronic or acute coronary syndromes
who: patients with small coronary vessels
method: optical coherence tomography at 12 months | angiographic follow-up at 9 months
method: clinical follow-up to five years
measure: target lesion failure | stent thrombosis | late lumen loss on angiography
aim: to compare {subject} with durable-polymer everolimus-eluting stents in {who}
aim: to assess vascular healing after implantation of {subject} in {who}
background: Thinner stent struts and biodegradable polymer coatings were developed to reduce vessel injury and late
    inflammation.
background: The polymer that carries the drug on a stent can persist for years and has been linked to delayed healing.
gap: whether strut thickness matters in contemporary practice is debated | long-term data in small vessels are limited
gap: coatings that degrade completely without inflammation remain a challenge
design: In this non-inferiority trial, {n} {who} were randomly assigned to {subject} or a durable-polymer
    everolimus-eluting stent.
design: We randomised {n_med} {who} at {centres} centres to {subject} or a durable-polymer stent, with {method}.
finding: Target lesion failure at 12 months occurred in {spct_lo}% with the ultrathin stent and {spct_hi}% with the
    comparator.
finding: Definite or probable stent thrombosis was rare in both groups, and non-inferiority was met for the primary end
    point.
finding: Late lumen loss was {small} mm, and optical coherence tomography showed neointimal coverage of more than 95%
    of struts.
implication: stent selection in percutaneous coronary intervention | the design of next-generation coronary stents
background: Strut thickness, alloy and polymer chemistry determine how a coronary stent interacts with the vessel wall.
background: The polymer coating of a drug-eluting stent controls how fast the antiproliferative drug reaches the vessel
    wall.
finding: Intravascular imaging showed that the biodegradable polymer coating had dissolved by 24 months, leaving a bare
    cobalt-chromium stent.
title: {subject} versus durable-polymer stents in {who} | Target lesion failure with {subject}: a randomised trial
title: Vascular healing after implantation of {subject}

== cardiology + neuroscience | atrial fibrillation and cognitive decline
subject: atrial fibrillation and cognitive decline | silent brain infarcts in atrial fibrillation
subject: dementia risk in atrial fibrillation
who: patients with atrial fibrillation aged 65 years or older
who: community-dwelling adults with and without atrial fibrillation
who: patients with atrial fibrillation taking oral anticoagulants
method: brain magnetic resonance imaging and the Montreal Cognitive Assessment
method: repeated neuropsychological testing with brain MRI
method: serial cognitive assessment and quantification of white matter hyperintensities
measure: cognitive decline | incident dementia | new silent brain infarcts on MRI | white matter hyperintensity volume
aim: to examine whether cognitive decline in atrial fibrillation is explained by brain injury visible on MRI in {who}
aim: to quantify the risk of incident dementia among {who}
background: Atrial fibrillation is associated with cognitive impairment and dementia, even in the absence of clinical
    stroke.
background: Cerebral hypoperfusion, microemboli and small vessel disease have been proposed as links between the heart
    and the brain.
background: Cerebral small vessel disease is a major cause of vascular cognitive impairment and contributes to most
    dementias.
background: Vascular risk factors such as hypertension and atrial fibrillation damage the small vessels of the brain.
gap: the mechanisms remain poorly understood
gap: it is unclear whether rhythm control or anticoagulation slows cognitive decline
design: We followed {n} {who} with {method} at baseline and after {years} years.
design: In a prospective cohort at {centres} centres, {n_med} {who} underwent {method} every two years.
finding: Atrial fibrillation was associated with incident dementia (hazard ratio {hr_up}) after adjustment for vascular
    risk factors.
finding: New silent brain infarcts appeared in {pct_lo}% of participants and explained part of the faster decline in
    cognitive scores.
finding: Cognitive scores declined faster in patients with persistent than with paroxysmal arrhythmia ({p}).
implication: brain imaging in patients with atrial fibrillation
implication: strategies to preserve cognition in atrial fibrillation
finding: Cerebral blood flow measured by arterial spin labelling MRI was {rel}% lower during atrial fibrillation than
    after cardioversion.
title: {subject} in {who} | Brain imaging and cognition in {who} | {subject}: a prospective MRI cohort

== cardiology + machine_learning | machine learning prediction of heart failure readmission
subject: machine learning prediction of heart failure readmission | machine learning risk models for heart failure
    outcomes | readmission prediction from electronic health records
who: patients discharged after hospitalisation for heart failure | adults with heart failure in an integrated health
    system
who: older patients with heart failure and multimorbidity
method: gradient-boosted decision trees
method: a recurrent neural network over longitudinal clinical data | a transformer model of structured data and
    clinical notes
measure: 30-day readmission | the area under the receiver operating characteristic curve | calibration of predicted
    risk
aim: to develop and validate {subject} in {who}
aim: to compare {method} with conventional risk scores in {who}
background: Readmission within 30 days is common after hospitalisation for heart failure and is costly for patients and
    health systems.
background: Established risk scores for heart failure predict readmission poorly, partly because they use few
    variables.
background: Electronic health records are irregularly sampled, and their missing values carry information about care.
background: Models that predict readmission or mortality from health records are widely studied but often poorly
    calibrated.
gap: whether machine learning improves on simple clinical models is disputed
gap: models are rarely tested for fairness across patient groups
gap: most methods are evaluated on a single hospital with a random split
gap: gains over logistic regression are often small
design: We trained {method} on records from {n} {who} and validated it over time and at {k} external hospitals.
design: Using {method}, we predicted readmission among {n} {who} and compared it with the LACE index and logistic
    regression.
finding: The model predicted 30-day readmission with an area under the curve of {auc}, compared with {auc_lo} for the
    best clinical score.
finding: Calibration was good overall but deteriorated at external hospitals, and recalibration restored it.
finding: Natriuretic peptides, prior admissions and social factors were the strongest predictors in explanation
    analyses.
implication: targeted transitional care after heart failure hospitalisation | clinical prediction models in cardiology
title: {subject} in {who} | Predicting heart failure readmission with {method} | External validation of {subject}

== oncology | neoadjuvant therapy for pancreatic cancer
subject: pancreatic ductal adenocarcinoma | borderline resectable pancreatic ductal adenocarcinoma
subject: non-metastatic pancreatic ductal adenocarcinoma
who: patients with borderline resectable pancreatic cancer | patients with resectable pancreatic ductal adenocarcinoma
who: patients fit for pancreatectomy
method: neoadjuvant modified FOLFIRINOX | neoadjuvant chemoradiotherapy | perioperative gemcitabine and nab-paclitaxel
measure: overall survival | the R0 resection rate | pathological response
aim: to determine whether {method} improves survival over upfront surgery in {who}
aim: to compare {method} with upfront resection and adjuvant chemotherapy in {who}
background: Pancreatic ductal adenocarcinoma has a five-year survival below 12%, and most patients relapse after
    resection.
background: Neoadjuvant therapy may treat micrometastatic disease early and select the patients who benefit from
    surgery.
gap: randomised evidence for neoadjuvant treatment in resectable disease is limited
gap: the optimal regimen before surgery is debated
design: In this multicentre phase III trial, {n_med} {who} were randomly assigned to {method} or upfront surgery.
design: We randomised {n_med} {who} at {centres} centres to {method} before resection or to immediate resection.
finding: Median overall survival was {med_hi} months with neoadjuvant treatment and {med_lo} months with upfront
    surgery (hazard ratio {hr}).
finding: The R0 resection rate was {pct_hi}% versus {pct_lo}%, and node-negative disease was more frequent after
    neoadjuvant therapy.
finding: Grade 3 or higher adverse events occurred in {pct_lo}% of patients during neoadjuvant treatment.
implication: the standard of care for localised pancreatic cancer | treatment sequencing in pancreatic cancer
title: {method} versus upfront surgery for {subject} | {method} in {who}: a randomised phase III trial
title: Survival after {method} for {subject}

== oncology | intensified first-line treatment of EGFR-mutant lung cancer
subject: EGFR-mutant non-small cell lung cancer | advanced non-small cell lung cancer with EGFR mutations
subject: EGFR-mutated lung adenocarcinoma
who: patients with previously untreated advanced EGFR-mutant NSCLC
who: patients with EGFR exon 19 deletions or L858R mutations
who: patients with EGFR-mutant NSCLC and brain metastases
method: osimertinib plus platinum-pemetrexed chemotherapy | osimertinib combined with carboplatin and pemetrexed
method: amivantamab plus lazertinib
measure: progression-free survival | central nervous system progression | objective response rate
aim: to evaluate the efficacy and safety of {method} in {who}
aim: to assess whether {method} delays resistance in {who}
background: EGFR tyrosine kinase inhibitors are the standard first-line treatment for EGFR-mutant NSCLC, but resistance
    develops.
background: Combining targeted therapy with chemotherapy or a second agent may delay the emergence of resistant clones.
gap: the benefit of intensified first-line treatment must be weighed against added toxicity
gap: how best to prevent brain progression is unknown
design: In this open-label phase III trial, {n_med} {who} were randomly assigned to {method} or osimertinib
    monotherapy.
design: We randomised {n_med} {who} at {centres} sites to {method} or osimertinib alone, with brain MRI every 12 weeks.
finding: Median progression-free survival was {med_hi} months with the combination and {med_lo} months with monotherapy
    (hazard ratio {hr}).
finding: Central nervous system progression occurred in {pct_lo}% of patients in the combination arm and {pct_hi}% in
    the control arm.
finding: The objective response rate was {pct_hi}%, and grade 3 or higher adverse events were more frequent with the
    combination.
implication: first-line treatment of EGFR-mutant lung cancer | strategies to delay resistance to targeted therapy
title: {method} in {who} | {method} versus osimertinib alone in {subject}
title: Progression-free survival with {method} in {subject}

== oncology | neoadjuvant immunotherapy for triple-negative breast cancer
subject: early triple-negative breast cancer | stage II to III triple-negative breast cancer
subject: high-risk early triple-negative breast cancer
who: women with previously untreated stage II or III triple-negative breast cancer
who: patients with early triple-negative breast cancer
method: neoadjuvant pembrolizumab plus chemotherapy | neoadjuvant chemotherapy with a PD-1 inhibitor
method: platinum-containing neoadjuvant chemotherapy with immunotherapy
measure: pathological complete response | event-free survival | immune-related adverse events
aim: to assess whether {method} increases pathological complete response in {who}
aim: to determine event-free survival with {method} in {who}
background: Triple-negative breast cancer is an aggressive subtype with few targeted therapies and early recurrence.
background: Pathological complete response after neoadjuvant therapy is strongly associated with survival in
    triple-negative disease.
gap: which patients need immunotherapy is not known
gap: whether tumour-infiltrating lymphocytes predict benefit remains debated
design: We randomly assigned {n_med} {who} to {method} or chemotherapy plus placebo, followed by surgery.
design: In this phase III trial at {centres} centres, {n_med} {who} received {method} or chemotherapy alone before
    surgery.
finding: Pathological complete response was achieved in {pct_hi}% of patients with immunotherapy and {pct_lo}% with
    chemotherapy alone.
finding: Event-free survival at three years was improved (hazard ratio {hr}), with benefit irrespective of PD-L1
    status.
finding: Immune-related adverse events of grade 3 or higher occurred in {pct_lo}% of patients, most commonly endocrine.
finding: Higher stromal tumour-infiltrating lymphocyte counts were associated with pathological complete response
    ({p}).
implication: the neoadjuvant treatment of triple-negative breast cancer
implication: biomarker selection for breast cancer immunotherapy
title: {method} in {subject} | {method} for {who}: a randomised trial | Pathological response to {method} in {subject}

== oncology | circulating tumour DNA after colon cancer surgery
subject: circulating tumour DNA after colon cancer surgery | minimal residual disease in stage II colon cancer
subject: postoperative circulating tumour DNA
who: patients with resected stage II colon cancer | patients after curative resection of stage II or III colon cancer
method: a tumour-informed circulating tumour DNA assay | serial ctDNA testing at four and seven weeks after surgery
method: personalised ctDNA monitoring every three months
measure: recurrence-free survival | the use of adjuvant chemotherapy | time to radiological recurrence
aim: to test whether {method} can reduce adjuvant chemotherapy without compromising survival in {who}
aim: to assess the prognostic value of {subject} in {who}
background: Adjuvant chemotherapy benefits only a minority of patients with stage II colon cancer, while exposing all
    to its toxicity.
background: Circulating tumour DNA after surgery indicates residual disease and identifies patients at high risk of
    recurrence.
gap: prospective evidence that ctDNA can guide treatment is scarce
gap: the lead time of ctDNA over imaging has not been well quantified
design: We randomly assigned {n_med} {who} to management guided by {method} or to standard clinicopathological
    management.
design: In this multicentre trial at {centres} hospitals, {n_med} {who} were assigned 2:1 to {method} or standard
    management.
finding: Patients with detectable ctDNA after surgery had markedly shorter recurrence-free survival (hazard ratio
    {hr_up}).
finding: Guidance by ctDNA reduced adjuvant chemotherapy use from {pct_hi}% to {pct_lo}%, with similar two-year
    recurrence-free survival.
finding: Molecular recurrence preceded radiological recurrence by a median of {x1} months.
implication: treatment de-escalation in stage II colon cancer | surveillance after colorectal cancer surgery
title: {subject} in {who} | Circulating tumour DNA to guide adjuvant chemotherapy in {who}
title: {method} and recurrence in {who}

== oncology | venetoclax-based therapy for older adults with leukaemia
subject: acute myeloid leukaemia in older adults | acute myeloid leukaemia unfit for intensive chemotherapy
who: patients aged 75 years or older with newly diagnosed acute myeloid leukaemia
who: adults with acute myeloid leukaemia ineligible for intensive induction
method: venetoclax combined with azacitidine | a hypomethylating agent plus venetoclax
method: venetoclax with low-dose cytarabine
measure: overall survival | composite complete remission | measurable residual disease negativity
aim: to describe outcomes of {method} in {who} in routine practice
aim: to determine whether measurable residual disease predicts survival after {method}
background: Venetoclax with a hypomethylating agent has become standard for older adults with AML who cannot receive
    intensive chemotherapy.
background: Outcomes of acute myeloid leukaemia in older adults remain poor, with median survival often under one year.
gap: real-world outcomes may differ from those in clinical trials
gap: the optimal treatment duration after remission is uncertain
design: We retrospectively analysed {n_med} {who} treated with {method} at {centres} centres between 2018 and 2023.
design: This multicentre cohort included {n_med} {who} who started {method}, with bone marrow assessment after two
    cycles.
finding: Composite complete remission was achieved in {pct_hi}% of patients, and median overall survival was {med_lo}
    months.
finding: Patients who became negative for measurable residual disease had longer survival (hazard ratio {hr}).
finding: Early mortality at 60 days was {pct_lo}%, higher than in the registration trials.
implication: treatment decisions for older adults with leukaemia | the duration of venetoclax-based therapy
title: {method} for {subject}: a multicentre real-world study | Outcomes of {method} in {who}
title: Measurable residual disease after {method} in {subject}

== oncology | combined checkpoint blockade in advanced melanoma
subject: advanced melanoma | unresectable or metastatic melanoma | previously untreated advanced melanoma
who: patients with previously untreated advanced melanoma | patients with unresectable stage III or IV melanoma
method: combined nivolumab and ipilimumab | nivolumab plus relatlimab
method: a fixed-dose combination of nivolumab and relatlimab
measure: overall survival | progression-free survival | treatment-related adverse events
aim: to report long-term outcomes of {method} in {who}
aim: to compare {method} with nivolumab alone in {who}
background: Immune checkpoint inhibitors have transformed the outlook for advanced melanoma, with durable responses in
    a subset of patients.
background: Combined checkpoint blockade improves efficacy over monotherapy at the cost of more immune-related
    toxicity.
gap: how to select patients for combination therapy is uncertain
gap: the survival benefit beyond five years has not been fully described
design: In this phase III trial, {n_med} {who} were randomly assigned to {method} or nivolumab monotherapy.
design: We report extended follow-up of {n_med} {who} randomised to {method} or nivolumab alone at {centres} sites.
finding: Median progression-free survival was {med_hi} months with the combination and {med_lo} months with nivolumab
    (hazard ratio {hr}).
finding: Treatment-related adverse events of grade 3 or 4 occurred in {pct_hi}% and {pct_lo}% of patients,
    respectively.
finding: Among patients alive at three years, most remained free of subsequent systemic therapy.
implication: first-line immunotherapy for advanced melanoma
implication: the balance of efficacy and toxicity in combined checkpoint blockade
title: {method} versus nivolumab alone in {subject} | Long-term survival with {method} in {who}
title: {method} for {subject}: a randomised trial

== oncology | CAR T-cell therapy for large B-cell lymphoma
subject: relapsed or refractory large B-cell lymphoma | early relapsed large B-cell lymphoma
who: patients with large B-cell lymphoma relapsing within 12 months of first-line therapy
who: patients with primary refractory large B-cell lymphoma
method: axicabtagene ciloleucel | CD19-directed CAR T-cell therapy | lisocabtagene maraleucel
measure: event-free survival | cytokine release syndrome | neurological events | complete response
aim: to compare {method} with salvage chemotherapy and autologous transplantation in {who}
aim: to evaluate the safety and efficacy of {method} in {who}
background: CAR T-cell therapy targeting CD19 can induce durable remissions in patients with aggressive B-cell
    lymphomas.
background: Patients with primary refractory or early relapsed large B-cell lymphoma have poor outcomes with salvage
    chemotherapy.
gap: its benefit as second-line therapy is uncertain | predictors of durable response are poorly defined
design: We randomly assigned {n_med} {who} to {method} or standard care with salvage chemotherapy and transplantation.
design: In this phase III trial at {centres} centres, {n_med} {who} received {method} or standard second-line therapy.
finding: Event-free survival was longer with CAR T-cell therapy (hazard ratio {hr}), and complete responses occurred in
    {pct_hi}% of patients.
finding: Cytokine release syndrome of grade 3 or higher occurred in {spct_hi}% of patients and neurological events in
    {pct_lo}%.
finding: Higher CAR T-cell expansion in the first two weeks was associated with durable response ({p}).
implication: second-line treatment of large B-cell lymphoma | the selection of patients for cellular therapy
title: {method} as second-line therapy for {subject} | {method} versus standard care in {who}
title: Cellular therapy for {subject}: a randomised trial

== oncology + machine_learning | deep learning prognosis from histopathology
subject: deep learning analysis of haematoxylin and eosin slides | a histopathology-based deep learning biomarker
subject: computational pathology for colorectal cancer prognosis
who: patients with stage II and III colorectal cancer
who: patients with resected colorectal cancer from {k} international cohorts
method: a convolutional neural network trained on whole-slide images
method: an attention-based multiple-instance learning model
method: a weakly supervised deep learning classifier of tumour morphology
measure: disease-specific survival | the hazard ratio between risk groups | concordance with pathologist grading
aim: to develop and validate a deep learning biomarker of prognosis from routine slides of {who}
aim: to determine whether {subject} adds prognostic information to TNM stage in {who}
background: Stage alone is an imperfect guide to adjuvant chemotherapy in colorectal cancer, and many patients are
    over- or undertreated.
background: Digitised histopathology slides contain prognostic information that pathologists cannot easily quantify.
background: Whole-slide images contain billions of pixels, while diagnostic labels are usually available only for whole
    slides.
background: Multiple-instance learning treats a slide as a bag of patches and learns which patches drive the
    slide-level label.
gap: few computational pathology biomarkers have been validated in independent cohorts
gap: their value beyond established risk factors is uncertain
gap: models often overfit to staining differences between hospitals
gap: attention weights are often mistaken for explanations
design: We trained {method} on whole-slide images from {n} {who} and validated it in {k} independent cohorts.
design: Using {method}, we classified slides from {n_med} {who} into risk groups and compared them with TNM stage.
finding: Patients classified as high risk had worse disease-specific survival (hazard ratio {hr_up}) in the validation
    cohorts.
finding: The biomarker remained prognostic after adjustment for stage, lymphovascular invasion and microsatellite
    instability ({p}).
finding: Combining the model with stage identified {pct_lo}% of stage III patients with a five-year survival above 90%.
implication: risk-adapted adjuvant chemotherapy in colorectal cancer | computational pathology in routine diagnostics
method: a transformer-based multiple-instance learning model over patch embeddings from a pathology foundation model
finding: Attention maps highlighted tumour budding and stromal regions, which pathologists confirmed as prognostic.
finding: Performance was maintained on slides from scanners and laboratories not seen in training after stain
    augmentation.
title: {subject} in {who} | A deep learning biomarker from routine histology in {who}
title: Prognostic value of {subject} in {who}

== oncology + neuroscience | neural activity and survival in glioblastoma
subject: tumour-associated epilepsy
subject: functional connectivity between glioblastoma and the surrounding cortex
subject: neuron-to-glioma synaptic signalling
who: patients with newly diagnosed IDH-wildtype glioblastoma | adults undergoing awake craniotomy for diffuse glioma
method: intraoperative electrocorticography | magnetoencephalography-based functional connectivity mapping
method: resting-state functional MRI
measure: overall survival | seizure freedom after resection | the extent of resection
aim: to examine whether {subject} is associated with survival in {who}
aim: to map {subject} with {method} in {who}
background: Glioblastoma is the most common malignant primary brain tumour, and median survival is under two years
    despite treatment.
background: Gliomas form synapses with neurons, and neuronal activity can drive tumour growth in experimental models.
gap: whether this interaction matters for patients is unclear
gap: how tumour-intrinsic connectivity affects outcome remains unknown
design: We studied {n_med} {who} with {method} before or during resection and followed them for survival.
design: In a prospective cohort at {centres} centres, {n_med} {who} underwent {method}, and tumour samples were
    profiled by RNA sequencing.
finding: High functional connectivity within the tumour region was associated with shorter overall survival (hazard
    ratio {hr_up}).
finding: Tumour regions with high connectivity showed increased expression of synaptogenic genes ({p}).
finding: Seizure freedom one year after resection was reached in {pct_hi}% of patients, more often after supramarginal
    resection.
implication: the surgical management of glioblastoma | the development of treatments that target neuron-glioma
    interactions
title: {subject} in {who} | {method} in glioblastoma: connectivity and survival | Neural activity and survival in {who}

== oncology + materials_science | nanoparticle delivery of chemotherapy to tumours
subject: nanoparticle delivery of chemotherapy to solid tumours | tumour-targeted lipid nanoparticles
subject: liposomal delivery of cytotoxic drugs
who: mice bearing orthotopic triple-negative breast tumours | patient-derived xenograft models of ovarian cancer
who: mice with subcutaneous colorectal tumours
method: PEGylated lipid nanoparticles loaded with paclitaxel
method: pH-responsive polymeric nanoparticles carrying doxorubicin
method: ligand-targeted liposomes
measure: tumour growth inhibition | intratumoural drug accumulation | systemic toxicity
aim: to test whether {method} improves drug delivery and antitumour activity in {who}
aim: to compare the efficacy of {method} with free drug in {who}
background: Nanoparticle carriers can prolong circulation and concentrate cytotoxic drugs in tumours, but clinical
    translation is slow.
background: Dose-limiting toxicity restricts the use of many chemotherapies, motivating tumour-selective delivery
    systems.
background: Nanocarriers that release drugs only under tumour-specific conditions could reduce the side effects of
    chemotherapy.
gap: delivery efficiency in tumours remains low
gap: the contribution of the tumour microenvironment to nanoparticle uptake is poorly understood
gap: premature leakage during circulation remains a problem
design: We treated {n_small} {who} with {method}, free drug or vehicle, and tracked tumour volume for {days} days.
design: Biodistribution of fluorescently labelled {method} was measured in {who}, and efficacy was assessed over four
    weeks.
finding: Tumour growth was inhibited by {pct_hi}% relative to free drug ({p}), without weight loss.
finding: Intratumoural drug concentration was {fold}-fold higher than after administration of free drug.
finding: Survival was prolonged, and liver and cardiac toxicity were lower than with the equivalent free-drug dose.
implication: nanomedicines for solid tumours | tumour-selective chemotherapy
title: {method} in {who} | Tumour-targeted delivery with {method} | Antitumour efficacy of {method} in {who}
analysis: Tumour volumes were compared with mixed-effects models, and survival with log-rank tests.
limitation: Whether these results translate from mouse models to patients remains to be tested.
conclusion: These results support further preclinical and clinical development of {implication}.
conclusion: The findings encourage the clinical translation of {implication}, starting with early-phase trials.

== oncology + machine_learning | CT radiomics to predict response to immunotherapy
subject: CT radiomics for predicting immunotherapy response | a deep learning radiomic signature
subject: radiomic features of tumour heterogeneity
who: patients with advanced non-small cell lung cancer treated with PD-1 inhibitors
who: patients with metastatic melanoma receiving checkpoint inhibitors | patients with advanced NSCLC from {k}
    hospitals
method: a LASSO Cox model of handcrafted radiomic features | a convolutional neural network applied to pretreatment CT
    | a delta-radiomics model of baseline and first follow-up scans
measure: objective response | overall survival | progression-free survival
aim: to develop a radiomic biomarker of response to immune checkpoint inhibitors in {who}
aim: to test whether {subject} adds to PD-L1 expression for predicting outcomes in {who}
background: Only a minority of patients benefit from immune checkpoint inhibitors, and PD-L1 expression is an imperfect
    biomarker.
background: Routine computed tomography captures tumour shape and texture that may reflect the immune microenvironment.
background: Manual delineation of tumours on CT and MRI is slow and varies between radiologists.
gap: most radiomic signatures have not been validated externally | how radiomic features relate to tumour biology is
    unclear
design: We extracted features from pretreatment CT scans of {n_med} {who} and built {method} in a training cohort.
design: Using {method}, we analysed scans from {n_med} {who} and validated the signature in an independent cohort.
finding: The signature predicted objective response with an area under the curve of {auc} in the validation cohort.
finding: Patients with a favourable radiomic score had longer overall survival (hazard ratio {hr}) independently of
    PD-L1.
finding: High-risk radiomic profiles were associated with low CD8 T-cell infiltration in matched biopsies ({p}).
implication: patient selection for immunotherapy | the use of imaging biomarkers in oncology
design: We trained {method} on pretreatment CT scans of {n_med} {who} and tested it on scans from other hospitals.
title: {subject} in {who} | Predicting response to immunotherapy with {method} | Radiomics and survival in {who}

== oncology + cardiology | thromboprophylaxis in ambulatory patients with cancer
subject: cancer-associated venous thromboembolism | thrombosis during chemotherapy
subject: venous thromboembolism in ambulatory patients with cancer
who: ambulatory patients starting chemotherapy with a Khorana score of 2 or more
who: patients with pancreatic or gastric cancer receiving chemotherapy | patients with active cancer and a central line
method: apixaban 2.5 mg twice daily | low-dose rivaroxaban | prophylactic low-molecular-weight heparin
measure: objectively confirmed venous thromboembolism | major bleeding | clinically relevant non-major bleeding
aim: to assess whether {method} prevents venous thromboembolism in {who}
aim: to compare the efficacy and bleeding risk of {method} in {who}
background: Venous thromboembolism is a common complication of cancer and a leading cause of death during chemotherapy.
background: Direct oral anticoagulants are increasingly used in patients with cancer, but bleeding risk varies with
    tumour type.
gap: which patients benefit from primary prophylaxis is uncertain
gap: the balance of thrombosis and bleeding in gastrointestinal cancers is unclear
design: In this double-blind trial, {n_med} {who} were randomly assigned to {method} or placebo for six months.
design: We randomised {n_med} {who} at {centres} cancer centres to {method} or no prophylaxis and followed them for 180
    days.
finding: Venous thromboembolism occurred in {spct_lo}% of patients receiving prophylaxis and {spct_hi}% with placebo
    (hazard ratio {hr}).
finding: Major bleeding occurred in {spct_lo}% of patients on anticoagulation, mostly in those with gastrointestinal
    tumours.
finding: The number needed to treat to prevent one thromboembolic event was {x3} over six months.
implication: risk-adapted thromboprophylaxis in oncology | the prevention of thrombosis during chemotherapy
title: {method} for {subject} | Thromboprophylaxis with {method} in {who} | Preventing {subject}: a randomised trial

== oncology + ecology | adaptive therapy based on tumour evolutionary dynamics
subject: adaptive therapy for metastatic prostate cancer | evolution-informed dosing of cancer therapy
subject: competition between drug-sensitive and resistant tumour cells
who: men with metastatic castration-resistant prostate cancer | men with metastatic prostate cancer starting
    abiraterone
who: men with hormone-sensitive metastatic prostate cancer
method: PSA-guided cycles of abiraterone | model-guided treatment breaks | evolution-informed abiraterone dosing
measure: time to radiographic progression | cumulative drug dose | the fraction of resistant cells
aim: to test whether {subject} delays resistance in {who}
aim: to evaluate whether {method} maintains tumour control in {who}
background: Continuous maximum-dose treatment eliminates sensitive cancer cells and can speed the competitive release
    of resistant clones.
background: Tumours are evolving ecosystems in which sensitive and resistant cells compete for space and resources.
gap: clinical evidence that exploiting competition delays resistance is limited
gap: the best rules for pausing and resuming treatment are unknown
design: In this pilot trial, {n_small} {who} received {method}, pausing treatment when PSA fell by half.
design: We fitted models of competing sensitive and resistant cells to PSA and imaging data from {n_med} {who} treated
    with {method}.
finding: Median time to progression was {med_hi} months with adaptive therapy and {med_lo} months in a contemporaneous
    cohort.
finding: Patients received {rel}% less drug than under standard continuous dosing.
finding: Model fits indicated that resistant cells were suppressed by competition during treatment breaks ({p}).
implication: evolution-informed cancer treatment | strategies to delay drug resistance
background: Pest management has long used competition and the fitness costs of resistance to slow the evolution of
    pesticide resistance.
finding: Lotka-Volterra competition models fitted to PSA dynamics showed a fitness cost of resistance in the absence of
    drug.
title: {subject} in {who} | Adaptive therapy with {method} in {who} | Competition and resistance in {who}

== oncology + cardiology | cardiac safety of HER2-targeted therapy
subject: cardiac safety of HER2-targeted therapy | trastuzumab-related cardiac events | cardiotoxicity in HER2-positive
    breast cancer
who: women with HER2-positive early breast cancer | older women with HER2-positive early breast cancer | patients with
    HER2-positive breast cancer at low cardiac risk
method: six months of adjuvant trastuzumab | anthracycline-free chemotherapy with dual HER2 blockade | a shortened
    course of subcutaneous trastuzumab
measure: invasive disease-free survival | symptomatic heart failure | decline in left ventricular ejection fraction
aim: to compare efficacy and cardiac safety of {method} in {who}
aim: to determine whether {method} maintains cancer control while reducing cardiac events in {who}
background: HER2-targeted therapy has transformed the prognosis of HER2-positive breast cancer but can cause reversible
    cardiac dysfunction.
background: Anthracycline-free regimens and shorter treatment durations aim to reduce toxicity without loss of
    efficacy.
background: Cardio-oncology services aim to protect the heart without compromising effective cancer treatment.
gap: the cardiac benefit of de-escalated regimens has not been quantified in older patients
gap: whether treatment can continue safely after a mild fall in ejection fraction is uncertain
gap: the best strategy to detect subclinical dysfunction is not established
design: We randomly assigned {n} {who} to {method} or standard treatment at {centres} centres.
design: In this phase III trial, {n_med} {who} were assigned to {method} or standard treatment, with echocardiography
    every three months.
finding: Invasive disease-free survival was similar between arms (hazard ratio {hr}), meeting non-inferiority.
finding: Symptomatic heart failure occurred in {spct_lo}% versus {spct_hi}% of patients.
finding: A decline in ejection fraction of more than 10 points occurred in {pct_lo}% of patients and was reversible in
    most.
implication: de-escalation of HER2-targeted therapy | cardio-oncology care in breast cancer
title: {method} in {who} | Cardiac safety of {method} in {who} | {subject}: a randomised trial

== neuroscience | hippocampal place cells and replay
subject: hippocampal place cells | sharp-wave ripple replay | hippocampal representations of space
who: freely moving rats exploring novel environments | mice navigating a virtual linear track
who: head-fixed mice trained on a spatial memory task
method: high-density silicon probe recordings in CA1 | miniature-microscope calcium imaging of CA1 neurons
method: chronic tetrode recordings
measure: place-field stability across days | the content of sharp-wave ripple replay | spatial memory performance
aim: to examine how learning reshapes {subject} in {who}
aim: to test whether {subject} predict later memory performance in {who}
background: Hippocampal place cells fire at specific locations and are thought to provide a cognitive map of space.
background: During sharp-wave ripples, hippocampal neurons replay sequences of past experience, a process linked to
    memory consolidation.
gap: how stable these representations are over days remains debated
gap: how replay content relates to later behaviour is unclear
design: We recorded {x4} neurons in {n_small} {who} with {method} over {days} days.
design: Using {method}, we tracked the activity of CA1 neurons in {n_small} {who} before and after learning.
finding: Only {pct_hi}% of place fields remained stable across sessions, whereas the population code was preserved.
finding: Replay during sleep after learning preferentially represented rewarded locations ({p}).
finding: Disrupting ripples optogenetically reduced spatial memory performance by {rel}%.
implication: theories of hippocampal memory consolidation | models of how the brain maps space
title: {subject} in {who} | Stability of {subject} measured with {method} | Learning and {subject} in {who}

== neuroscience | sleep spindles and memory consolidation
subject: sleep spindles | slow oscillation-spindle coupling | thalamocortical sleep spindles
who: healthy young adults | older adults with mild cognitive impairment | healthy adolescents
method: high-density EEG | closed-loop auditory stimulation during slow-wave sleep
method: polysomnography combined with targeted memory reactivation
measure: overnight retention of word pairs | spindle density | motor sequence learning
aim: to test whether {subject} can predict overnight memory retention in {who}
aim: to relate {subject} to memory consolidation in {who}
background: Sleep supports the consolidation of newly acquired memories, and thalamocortical spindles are a candidate
    mechanism.
background: The precise coupling of spindles to cortical slow oscillations declines with age and has been linked to
    memory loss.
gap: whether spindle coupling causally contributes to consolidation is unclear
gap: findings in older adults are inconsistent
design: In total, {n_small} {who} learned word pairs in the evening and were recorded overnight with {method}.
design: We recorded {n_small} {who} on two nights with {method} and tested memory before and after sleep.
finding: Spindles coupled to slow-oscillation up-states predicted overnight retention (r = {r}, {p}).
finding: Coupling precision was lower in older participants and mediated part of the age-related decline in memory.
finding: Retention improved by {pct_lo}% on stimulation nights compared with sham nights.
implication: non-invasive strategies to enhance memory during sleep | models of systems memory consolidation
title: {subject} and memory consolidation in {who} | {subject} measured with {method} in {who}
title: Sleep, {subject} and overnight memory in {who}

== neuroscience | dopamine and reward prediction errors
subject: dopamine reward prediction errors | dopamine signals in the ventral striatum | phasic dopamine responses
who: mice performing a probabilistic reward task | head-fixed mice learning odour-reward associations
who: rats trained on a reversal learning task
method: fibre photometry with a genetically encoded dopamine sensor
method: optogenetic stimulation of ventral tegmental area neurons
method: recordings from optogenetically identified dopamine neurons
measure: dopamine release in the nucleus accumbens | learning rate | anticipatory licking
aim: to test whether {subject} follow the predictions of temporal-difference learning in {who}
aim: to determine how {subject} shape learning in {who}
background: Midbrain dopamine neurons are thought to signal reward prediction errors that drive reinforcement learning.
background: Recent work suggests that dopamine signals may also encode value, novelty and movement.
gap: how these signals vary across striatal regions remains debated
gap: whether prediction errors are necessary for learning is unclear
design: We measured {subject} with {method} in {n_small} {who} across {days} training sessions.
design: Using {method}, we recorded activity in {n_small} {who} while reward probability and timing were varied.
finding: Responses to reward scaled with reward probability and shifted to predictive cues over learning ({p}).
finding: Dopamine signals in the tail of the striatum responded to novel stimuli rather than to reward.
finding: Stimulating dopamine neurons at reward delivery increased the learning rate by {rel}%.
implication: computational models of reinforcement learning | theories of dopamine function in addiction
title: {subject} in {who} | {subject} measured with {method} | Reward learning and {subject} in {who}

== neuroscience | oscillations and working memory
subject: prefrontal theta-gamma coupling | alpha oscillations during working memory | beta bursts in prefrontal cortex
who: healthy adults performing a visual working memory task | older adults performing a spatial span task
who: young adults with attention-deficit hyperactivity disorder
method: magnetoencephalography | high-density electroencephalography | simultaneous EEG and functional MRI
measure: working memory capacity | reaction time | memory precision
aim: to determine whether the number of items held in memory is reflected in {subject} in {who}
aim: to examine the relation between {subject} and working memory performance in {who}
background: Working memory allows information to be held and manipulated for seconds, and its capacity is limited to a
    few items.
background: Oscillatory activity in prefrontal and parietal cortex has been proposed to organise the maintenance of
    working memory.
gap: whether oscillations reflect maintenance or cognitive control is debated | their behavioural relevance is unclear
design: We used {method} in {n_small} {who} while memory load varied from one to four items.
design: Using {method}, we measured activity in {n_small} {who} during the encoding, delay and probe periods of the
    task.
finding: Delay-period {subject} increased with memory load and predicted individual capacity (r = {r}).
finding: Trials with stronger coupling were answered faster and more accurately ({p}).
finding: Brief bursts of beta activity marked the end of maintenance and the clearing of memory content.
implication: models of working memory maintenance | biomarkers of cognitive impairment
title: {subject} during working memory in {who} | {subject} and memory load measured with {method}
title: Working memory capacity and {subject} in {who}

== neuroscience | tau and amyloid imaging in preclinical Alzheimer's disease
subject: tau accumulation in Alzheimer's disease | amyloid and tau pathology in preclinical Alzheimer's disease
subject: plasma phosphorylated tau 217
who: cognitively unimpaired older adults | patients with mild cognitive impairment | members of a memory clinic cohort
method: tau positron emission tomography | amyloid and tau PET imaging
method: plasma p-tau217 measurements with longitudinal PET
measure: cognitive decline over four years | conversion to dementia | hippocampal atrophy
aim: to determine whether {subject} predicts cognitive decline in {who}
aim: to compare {method} with clinical assessment for predicting progression in {who}
background: Amyloid plaques and tau tangles accumulate in the brain years before the clinical symptoms of Alzheimer's
    disease.
background: Anti-amyloid antibodies have made early and accurate detection of Alzheimer's pathology clinically
    relevant.
gap: which biomarker best predicts decline in people without symptoms is uncertain
gap: the temporal ordering of amyloid and tau in individuals is not fully resolved
design: We followed {n_med} {who} with {method} and annual cognitive testing for a median of {years} years.
design: In this longitudinal cohort, {n_med} {who} underwent {method} at baseline and repeated neuropsychological
    testing.
finding: Higher baseline tau signal in the medial temporal lobe predicted faster cognitive decline ({p}).
finding: Plasma p-tau217 identified amyloid positivity with an area under the curve of {auc}.
finding: Participants positive for both amyloid and tau were {fold} times more likely to progress to dementia.
implication: participant selection for prevention trials | the early diagnosis of Alzheimer's disease
title: {subject} in {who} | {method} and cognitive decline in {who} | {subject} and cognitive decline in {who}

== neuroscience | adaptive deep brain stimulation in Parkinson's disease
subject: adaptive deep brain stimulation | closed-loop subthalamic stimulation | beta-guided deep brain stimulation
who: patients with Parkinson's disease implanted with subthalamic electrodes | people with advanced Parkinson's disease
method: sensing-enabled deep brain stimulation devices | chronic local field potential recordings at home
method: beta-triggered control of stimulation amplitude
measure: motor symptom severity | time in the on-state without troublesome dyskinesia | stimulation energy
aim: to test whether {subject} improves motor control in {who} compared with conventional stimulation
aim: to assess the feasibility of long-term {subject} in {who}
background: Deep brain stimulation of the subthalamic nucleus is an effective treatment for motor fluctuations in
    Parkinson's disease.
background: Beta-band oscillations in the subthalamic nucleus track bradykinesia and rigidity and can serve as a
    control signal.
gap: it is unclear whether adaptive control outperforms continuous stimulation in daily life
gap: long-term recordings outside the laboratory are scarce
design: In a randomised crossover study, {n_small} {who} received {subject} and continuous stimulation for {weeks}
    weeks each.
design: We used {method} to record subthalamic activity in {n_small} {who} for {days} days at home before comparing
    stimulation modes.
finding: Time in the on-state without troublesome dyskinesia increased by {x1} hours per day with adaptive stimulation
    ({p}).
finding: Beta power fluctuated with medication intake and sleep, and stimulation energy fell by {rel}%.
finding: Motor scores were similar between modes, and most participants preferred adaptive stimulation.
implication: personalised neuromodulation therapies | the clinical use of closed-loop deep brain stimulation
title: {subject} in {who} | {subject} versus continuous stimulation in Parkinson's disease
title: Home recordings with {method} in {who}

== neuroscience | cerebellar error signals in motor learning
subject: climbing fibre signals in the cerebellum | complex spikes in Purkinje cells | cerebellar error signals
who: mice learning a skilled reaching task | head-fixed mice undergoing eye-blink conditioning
who: head-fixed mice adapting to a visuomotor perturbation
method: two-photon imaging of Purkinje cell dendrites | Neuropixels recordings in the cerebellar cortex
method: optogenetic inhibition of climbing fibres
measure: motor adaptation | the timing of conditioned responses | complex spike rates
aim: to determine how {subject} instruct motor learning in {who}
aim: to test whether {subject} encode errors or predictions in {who}
background: The cerebellum is thought to learn internal models of movement using error signals carried by climbing
    fibres.
background: Climbing fibre input triggers complex spikes in Purkinje cells and drives plasticity at parallel fibre
    synapses.
gap: whether these signals encode errors, predictions or reward remains controversial
gap: their role during skilled learning is poorly understood
design: Using {method}, we monitored {x4} Purkinje cells in {n_small} {who} across learning.
design: We combined {method} with high-speed video tracking of movement in {n_small} {who}.
finding: Complex spike rates increased after movement errors and declined as performance improved ({p}).
finding: Climbing fibre responses came to precede the movement, consistent with a predictive signal.
finding: Silencing climbing fibres during training reduced adaptation by {rel}% without affecting baseline movements.
implication: computational models of cerebellar learning | the rehabilitation of motor deficits
title: {subject} in {who} | {subject} during motor learning | Error signals and learning in {who}

== neuroscience + machine_learning | neural network models of sensory cortex
subject: deep convolutional network models of the ventral visual stream
subject: task-optimised neural network models of visual cortex
subject: recurrent neural network models of cortical circuits
who: macaque monkeys recorded with multi-electrode arrays | mice imaged with two-photon calcium imaging
who: human participants scanned with functional MRI
method: linear encoding models fitted to each recording site | representational similarity analysis
method: a cross-validated neural predictivity benchmark
measure: explained variance of neural responses | representational similarity to neural data
measure: predictive accuracy for held-out stimuli
aim: to test how well {subject} predict neural responses in {who}
aim: to determine which training objectives make {subject} most brain-like
background: Deep networks trained on object recognition are the best current predictive models of the primate ventral
    visual stream.
background: Comparisons of artificial networks with neural data have become a central tool for testing theories of
    sensory processing.
gap: it is unclear which architectural features account for this correspondence
gap: recurrent processing is largely absent from current models
design: We compared {subject} with neural responses of {who} to {x4} natural images, using {method}.
design: We recorded the responses of {who} to {x4} images and compared them with every network layer using {method}.
finding: Intermediate network layers explained up to {x2}% of the explainable variance in neural responses.
finding: Networks trained with self-supervised objectives predicted neural activity as well as supervised ones ({p}).
finding: Adding recurrent connections improved predictions at late response latencies.
implication: computational theories of visual object recognition
implication: the use of artificial networks as models of the brain
title: {subject} predict responses of {who} | Comparing {subject} with {method}
title: Brain-like representations in {subject}

== neuroscience + cardiology | heartbeat-evoked responses and perception
subject: heartbeat-evoked potentials | cardiac interoception | the cardiac cycle and conscious perception
who: healthy adult volunteers | patients with anxiety disorders
who: healthy adults performing a near-threshold detection task
method: electroencephalography with simultaneous electrocardiography | magnetoencephalography time-locked to the R-peak
method: high-density EEG combined with heart rate variability measures
measure: heartbeat detection accuracy | perceptual sensitivity to weak stimuli | heartbeat-evoked potential amplitude
aim: to examine how {subject} relate to conscious perception in {who}
aim: to test whether {subject} differ in {who}
background: The brain continuously receives signals from the heart, and cortical responses to heartbeats have been
    linked to emotion.
background: Signals from the cardiovascular system can modulate perception, with stimuli processed differently at
    systole and diastole.
gap: the cortical sources of these responses are debated
gap: it is unclear whether they reflect attention to the body or cardiac artefact
design: We used {method} in {n_small} {who} during a heartbeat counting task and a visual detection task.
design: Using {method}, we analysed cortical responses time-locked to {x4} heartbeats per participant in {n_small}
    {who}.
finding: Heartbeat-evoked responses over frontocentral sensors were larger before detected than before missed stimuli
    ({p}).
finding: Detection sensitivity was lower for stimuli presented during cardiac systole than during diastole.
finding: Interoceptive accuracy correlated with the amplitude of heartbeat-evoked responses (r = {r}).
implication: theories of interoception and emotion | the study of brain-heart interactions in psychiatric disorders
title: {subject} and conscious perception in {who} | {subject} studied with {method}
title: Brain responses to heartbeats in {who}

== neuroscience + materials_science | flexible probes for chronic neural recording
subject: flexible polymer neural probes | ultrathin mesh electronics for chronic recording | soft microelectrode arrays
    | PEDOT:PSS-coated flexible electrodes
who: freely moving mice | rats implanted for several months | head-fixed mice
method: chronic electrophysiological recordings over three months | histology of the tissue around the implant
method: simultaneous electrophysiology and two-photon imaging
measure: single-unit yield over time | glial scarring around the probe | the stability of recorded neurons
aim: to test whether {subject} allow stable tracking of the same neurons in {who}
aim: to compare the tissue response to {subject} and to stiff silicon probes in {who}
background: Stiff silicon electrodes provoke glial scarring and micromotion that degrade neural recordings within
    weeks.
background: Tracking the same neurons over months would open the study of learning and ageing at cellular resolution.
background: Neural interfaces need electrodes that are soft, small and efficient to record and stimulate neurons over
    years.
gap: long-term stability in behaving animals has rarely been demonstrated
gap: how probe mechanics affect neuronal survival is unclear
design: We implanted {subject} in {n_small} {who} and performed {method}.
design: Using {method}, we compared {subject} with conventional silicon probes implanted in {n_small} {who}.
finding: The number of well-isolated single units remained stable for {weeks} weeks, and {pct_hi}% of neurons were
    tracked across sessions.
finding: Astrocytic and microglial markers around the implant were reduced by {rel}% relative to silicon probes.
finding: Place-cell maps recorded with the flexible probes remained stable across months of recording.
implication: chronic brain-machine interfaces | long-term studies of learning at single-neuron resolution
finding: Electrode impedance stayed below {x4} kilohms at 1 kHz throughout the implantation period.
title: Chronic recordings with {subject} in {who} | {subject} for stable single-neuron recording
title: Tissue response to {subject} in {who}

== neuroscience + oncology | cognitive impairment after chemotherapy
subject: cancer-related cognitive impairment | chemotherapy-related cognitive changes
subject: cognitive decline after chemotherapy
who: women treated with chemotherapy for breast cancer | survivors of childhood acute lymphoblastic leukaemia
who: men treated with cisplatin for testicular cancer
method: resting-state functional MRI and neuropsychological testing | diffusion tensor imaging
method: longitudinal cognitive testing with structural MRI
measure: working memory performance | functional connectivity of the default mode network | white matter integrity
aim: to characterise {subject} in {who}
aim: to test whether {subject} is accompanied by changes in brain networks in {who}
background: Many cancer survivors report problems with memory and concentration after treatment, often called chemo
    brain.
background: Chemotherapy agents can damage neural progenitor cells and white matter in animal models.
gap: the neural basis of these complaints in patients is poorly understood
gap: whether the changes recover after treatment is unclear
design: We studied {n_med} {who} and matched controls with {method} before treatment and after {years} years.
design: In this longitudinal study, {n_med} {who} underwent {method} at diagnosis, after treatment and one year later.
finding: Connectivity within the default mode network decreased after treatment and correlated with memory complaints
    (r = {r}).
finding: Fractional anisotropy in frontal white matter was reduced compared with controls ({p}).
finding: Performance on working memory tasks recovered partially by one year in {pct_hi}% of affected patients.
implication: cognitive rehabilitation for cancer survivors | neuroprotective strategies during chemotherapy
title: {subject} in {who} | Brain networks and {subject} in {who} | Longitudinal imaging of {subject} in {who}

== neuroscience + ecology | the neural basis of magnetic orientation in migratory birds
subject: magnetic compass orientation | magnetoreception | magnetic navigation in migratory birds
who: night-migratory European robins | migratory songbirds caught during autumn migration | garden warblers
method: orientation tests in Emlen funnels | immediate early gene mapping of activated brain regions
method: electrophysiological recordings from visual forebrain neurons
measure: orientation accuracy | neuronal activation in Cluster N | disruption by radiofrequency noise
aim: to identify the brain regions required for {subject} in {who}
aim: to test whether {subject} depends on the visual system in {who}
background: Migratory birds use the magnetic field of the Earth to orient, possibly via light-dependent reactions in
    retinal cryptochromes.
background: Cluster N, a forebrain region that processes visual input, is active in night-migratory birds during
    magnetic orientation.
gap: how magnetic information reaches the brain remains unknown
gap: which neural pathways carry magnetic signals is debated
design: We tested {n_small} {who} with {method} under natural and shifted magnetic fields.
design: Using {method}, we examined {n_small} {who} after lesions of the visual pathway or sham surgery.
finding: Birds with lesions of Cluster N lost magnetic compass orientation but still oriented by the stars.
finding: Weak broadband radiofrequency noise abolished orientation, consistent with a radical-pair mechanism ({p}).
finding: Activation of Cluster N was {fold} times higher at night than during the day.
implication: models of animal navigation | the conservation of migratory species in changing environments
background: Songbirds migrate thousands of kilometres between breeding and wintering grounds, mostly at night.
finding: Tracked with geolocators after release, lesioned birds deviated from the migratory route of their population.
title: {subject} in {who} | Brain pathways for {subject} in {who} | Magnetic orientation and Cluster N in {who}

== neuroscience + machine_learning | speech decoding from cortical activity
subject: a speech neuroprosthesis | decoding attempted speech from cortical activity | a brain-computer interface for
    speech
who: a participant with anarthria after brainstem stroke | people with amyotrophic lateral sclerosis
who: patients with severe paralysis
method: high-density electrocorticography arrays decoded by a recurrent neural network
method: intracortical microelectrode arrays decoded with a language model
method: electrodes over ventral sensorimotor cortex decoded by a deep phoneme classifier
measure: word error rate | decoding speed in words per minute | vocabulary size
aim: to restore communication in {who} with {subject}
aim: to test whether {method} can decode attempted speech in {who}
background: Paralysis can leave people unable to speak although the cortical areas that control speech remain intact.
background: Brain-computer interfaces translate neural activity into text or sound and could restore natural
    communication.
gap: decoding accuracy with large vocabularies has been limited | the stability of decoders over months is unclear
gap: it is unclear whether pre-training scales for neural signals as it does for language and images
design: We recorded from {method} in {who} and trained the decoder on {x4} attempted sentences.
design: Using {method}, we recorded cortical activity in {who} over {weeks} weeks during attempts to speak cued
    sentences.
finding: Sentences were decoded at {x3} words per minute with a median word error rate of {x2}%.
finding: Adding a language model reduced the word error rate by {rel}% for a vocabulary of {cycles} words.
finding: Decoding remained stable for months without daily recalibration of the decoder.
implication: communication neuroprostheses for people with paralysis | the neural basis of speech production
finding: A transformer decoder pre-trained on other participants reduced the data needed for calibration by {rel}%.
title: {subject} in {who} | Decoding attempted speech with {method} | Restoring communication in {who}

== neuroscience + ecology | sleep in the wild recorded with EEG loggers
subject: natural sleep | unihemispheric sleep | the architecture of sleep in free-living animals
who: great frigatebirds flying over the ocean | wild sloths in a tropical rainforest | free-ranging barn owls
method: miniature electroencephalography loggers | EEG loggers combined with accelerometers and GPS
method: telemetry of brain activity during natural behaviour
measure: daily sleep duration | the proportion of unihemispheric slow-wave sleep | rapid eye movement sleep
aim: to measure {subject} in {who}
aim: to determine how ecological demands shape {subject} in {who}
background: Most knowledge about sleep comes from animals in laboratories, where food is easy to find and predators are
    absent.
background: Sleep is thought to be essential for brain function, yet some animals must stay vigilant for long periods.
gap: how much animals sleep in the wild is largely unknown | whether laboratory findings reflect natural sleep is
    unclear
design: We recorded brain activity in {n_small} {who} for up to {days} days using {method}.
design: Using {method}, we followed {n_small} {who} through their natural daily activity and scored sleep stages
    offline.
finding: Animals slept {x1} hours per day, much less than in captivity ({p}).
finding: Slow-wave sleep often occurred in one hemisphere at a time, with the eye connected to the awake hemisphere
    open.
finding: Lost sleep was recovered only partially on the following days, suggesting an adaptive reduction of sleep need.
implication: theories of the functions of sleep | comparative studies of sleep across species
title: {subject} in {who} | EEG recordings of {subject} | Sleep under natural conditions in {who}

== neuroscience + cardiology | cerebral small vessel disease and cognition
subject: cerebral small vessel disease | white matter hyperintensities | cerebral microbleeds
who: community-dwelling older adults | patients with hypertension attending a memory clinic | adults after lacunar
    stroke
method: 7-tesla MRI of small vessels | diffusion tensor imaging of white matter networks
method: longitudinal MRI with repeated cognitive testing
measure: processing speed | executive function | white matter hyperintensity progression
aim: to link {subject} to cognitive decline in {who}
aim: to determine which markers of {subject} predict dementia in {who}
background: Cerebral small vessel disease is a major cause of vascular cognitive impairment and contributes to most
    dementias.
background: Vascular risk factors such as hypertension and atrial fibrillation damage the small vessels of the brain.
background: Atrial fibrillation is associated with cognitive impairment and dementia, even in the absence of clinical
    stroke.
background: Cerebral hypoperfusion, microemboli and small vessel disease have been proposed as links between the heart
    and the brain.
gap: how small vessel lesions disrupt brain networks is unclear
gap: which imaging markers best predict cognitive decline is debated
gap: the mechanisms remain poorly understood
design: We followed {n_med} {who} with {method} for a median of {years} years.
design: Using {method}, we studied {n_med} {who} and related imaging markers to cognition.
finding: Faster progression of white matter hyperintensities predicted decline in processing speed ({p}).
finding: Disruption of structural network efficiency mediated the link between small vessel disease and cognition.
finding: Higher blood pressure variability was associated with new microbleeds (hazard ratio {hr_up}).
implication: the prevention of vascular cognitive impairment | imaging markers for clinical trials in small vessel
    disease
title: {subject} and cognitive decline in {who} | Brain networks and {subject} | Predicting cognitive decline from
    {subject}

== ecology | Japanese knotweed on riverbanks
subject: Japanese knotweed invasion | invasive knotweed in riparian habitats | the spread of Reynoutria japonica
who: riverbanks in {k} catchments | lowland river corridors | riparian woodland edges
method: paired surveys of vegetation and soil | a removal experiment with herbicide and native seeding
method: resurveys of historical vegetation transects
measure: native plant species richness | soil nitrogen availability | bank erosion
aim: to quantify the effects of {subject} on native plant communities along {who}
aim: to test whether removal followed by native seeding restores vegetation along {who}
background: Invasive knotweeds form dense monocultures along rivers in Europe and North America.
background: Knotweed invasion alters litter inputs and soil processes, with potential cascading effects on riverine
    food webs.
gap: long-term recovery after control is rarely monitored | effects on soil function are poorly quantified
design: Using {method}, we compared {x3} invaded and uninvaded plots along {who}.
design: We monitored {x3} plots along {who} for {span} years after knotweed removal, using {method}.
finding: Native species richness was {pct_hi}% lower in invaded plots, and the effect increased with stand age.
finding: Soil nitrate availability was {fold}-fold higher under knotweed stands ({p}).
finding: Native cover recovered within {span} years of removal only where seeds of native species were added.
implication: the management of invasive plants along rivers | restoration planning for riparian habitats
title: Effects of {subject} on native vegetation along {who} | Restoring native vegetation after {subject}
title: {subject} and soil nitrogen cycling along {who}

== ecology | flower strips and wild pollinators
subject: wild bees and hoverflies | wild pollinator communities | bumblebee populations
who: farmland landscapes in {k} regions | oilseed rape fields and apple orchards
who: agricultural landscapes with contrasting semi-natural habitat cover
method: standardised transect walks and pan traps | sown wildflower strips in a before-after control-impact design
method: pollen-load analysis of captured bees
measure: wild bee abundance | crop pollination and yield | bee species richness
aim: to test whether sown flower strips support {subject} and crop pollination in {who}
aim: to identify landscape drivers of {subject} in {who}
background: Wild pollinators contribute substantially to crop yields, yet many species have declined with agricultural
    intensification.
background: Agri-environment schemes pay farmers to sow flower strips, but their benefits for pollination remain
    contested.
gap: evidence that flower strips raise crop yields is scarce | how local and landscape effects interact is unclear
design: We surveyed {subject} at {x3} sites in {who} using {method} over {k} years.
design: Using {method}, we compared {x3} fields with and without adjacent flower strips in {who}.
finding: Wild bee abundance was {pct_hi}% higher next to flower strips, but species richness did not differ ({p_ns}).
finding: Fruit set increased with wild bee visitation rates, independently of honeybee density.
finding: The benefits of flower strips were largest in landscapes with less than 10% semi-natural habitat.
implication: the design of agri-environment schemes | managing farmland for pollination services
title: Flower strips, {subject} and crop pollination in {who} | Landscape drivers of {subject} in {who}
title: {subject} in {who}: a multi-year survey

== ecology | coral bleaching during marine heatwaves
subject: coral bleaching during marine heatwaves | thermal tolerance of reef-building corals
subject: coral recovery after mass bleaching
who: reefs of the Great Barrier Reef | fringing reefs in the Red Sea | reef flats around {k} Pacific islands
method: repeated aerial and underwater bleaching surveys | common-garden heat-stress experiments
method: photographic transects with satellite sea surface temperatures
measure: coral cover | bleaching prevalence | accumulated heat stress in degree heating weeks
aim: to relate {subject} to accumulated heat stress across {who}
aim: to test whether local conditions modify {subject} on {who}
background: Marine heatwaves have caused repeated mass coral bleaching, and the intervals for recovery are shrinking.
background: Corals differ widely in heat tolerance, raising hopes that some reefs may act as refugia.
gap: the drivers of this variation are poorly resolved
gap: whether tolerance persists across successive heatwaves is unknown
design: We used {method} at {x3} sites across {who} over {k} successive summers.
design: Using {method}, we followed tagged colonies on {who} through {k} heatwaves.
finding: Bleaching prevalence rose steeply above {k} degree heating weeks, and coral cover fell by {pct_hi}% on the
    worst-hit reefs.
finding: Colonies from warmer, more variable reef flats bleached {rel}% less than those from stable sites ({p}).
finding: Recovery of coral cover took more than {span} years where herbivorous fish were depleted.
implication: the selection of reef refugia for protection | coral restoration under ocean warming
title: {subject} across {who} | Heat stress and {subject} on {who} | {subject}: evidence from {method}

== ecology | fertilisation and soil microbial communities
subject: soil microbial communities | soil fungal communities | soil bacterial communities
who: long-term fertilisation plots in temperate grassland | arable fields under conventional and organic management
who: grassland plots in a nutrient-addition experiment
method: amplicon sequencing of bacterial and fungal marker genes | shotgun metagenomics
method: stable isotope probing with 15N-labelled substrates
measure: microbial diversity | nitrogen mineralisation rates | the abundance of mycorrhizal fungi
aim: to determine how nutrient management shapes {subject} in {who}
aim: to link {subject} to nutrient cycling in {who}
background: Soil microorganisms drive decomposition and nutrient cycling, and their diversity underpins many ecosystem
    functions.
background: Agricultural intensification and nitrogen deposition alter soil microbial communities in ways that are hard
    to predict.
gap: how changes in community composition translate into changes in function is unclear
gap: long-term responses are rarely studied
design: We sampled {x3} soil cores from {who} and characterised communities by {method}.
design: Using {method}, we analysed {subject} in {who} across {k} seasons.
finding: Nitrogen fertilisation reduced fungal diversity by {pct_lo}% and shifted communities towards fast-growing
    bacteria.
finding: Mycorrhizal fungal abundance declined with fertilisation and predicted lower phosphorus uptake by plants
    ({p}).
finding: Nitrogen mineralisation rates were best explained by microbial community composition rather than by soil pH.
implication: sustainable soil management | predictions of nutrient cycling under global change
title: {subject} in {who} | Fertilisation effects on {subject} in {who}
title: Linking {subject} to nitrogen cycling in {who}

== ecology | returning wolves and deer behaviour
subject: wolf recolonisation | large carnivore recovery | predation risk from returning wolves
who: forested landscapes in central Europe | mountain valleys in the western Alps
who: a national park in the northern Rockies
method: camera-trap surveys | GPS telemetry of deer and wolves | browsing surveys of tree regeneration
measure: deer habitat use | browsing pressure on tree saplings | roe deer activity patterns
aim: to test whether {subject} changes deer behaviour and browsing in {who}
aim: to quantify the trophic effects of {subject} in {who}
background: Large carnivores are returning to parts of Europe and North America after decades of absence.
background: Predators can influence ecosystems not only by killing prey but also by changing where and when prey feed.
gap: evidence for trophic cascades in human-dominated landscapes is mixed | effects on forest regeneration are debated
design: We used {method} at {x3} sites in {who} over {k} years.
design: Using {method}, we compared areas with and without established wolf packs in {who}.
finding: Deer used areas near wolf rendezvous sites {rel}% less often, especially at dusk ({p}).
finding: Browsing on young trees was lower in wolf territories, and sapling height increased by {x2}% over the study.
finding: Deer shifted their activity towards daytime where human disturbance was low.
implication: the management of large carnivores and deer | forest restoration in landscapes with returning predators
title: {subject} and deer behaviour in {who} | Trophic effects of {subject} in {who}
title: Predation risk, browsing and {subject} in {who}

== ecology | dam removal and migratory fish
subject: dam removal | river connectivity restoration | barrier removal for migratory fish
who: salmon rivers in the Pacific Northwest | upland streams in {k} catchments | a lowland river network
method: electrofishing surveys before and after removal | environmental DNA sampling
method: passive integrated transponder tagging of fish
measure: the abundance of migratory fish | fish species richness upstream | sediment transport
aim: to evaluate the ecological responses to {subject} in {who}
aim: to test whether {subject} restores fish migration in {who}
background: Dams and weirs fragment rivers and block the migration of fish such as salmon, eels and lampreys.
background: Barrier removal is increasingly used to restore river connectivity, but its outcomes are rarely monitored
    for long.
gap: the speed of recolonisation is poorly known | responses of resident species are seldom reported
design: We used {method} at {x3} sites upstream and downstream of removed barriers in {who} over {k} years.
design: In a before-after control-impact design, we monitored {who} with {method}.
finding: Migratory fish recolonised upstream reaches within two years, and their abundance increased {fold}-fold.
finding: Salmon DNA was detected upstream of the former dam in {pct_hi}% of samples after removal, against none before.
finding: Resident fish species richness upstream did not change ({p_ns}), while sediment pulses subsided within a year.
implication: the prioritisation of barriers for removal | river restoration programmes
title: Ecological responses to {subject} in {who} | Fish recolonisation after {subject} in {who}
title: {subject} in {who}: evidence from {method}

== ecology | upslope shifts of mountain plants
subject: upslope shifts of alpine plants | mountain plant range shifts | changes in summit floras
who: summits in the European Alps | mountain summits in Scandinavia | mountain summits in the Pyrenees
method: resurveys of historical summit plots | repeated surveys of permanent vegetation plots
method: species distribution models with downscaled climate data
measure: species richness on summits | the elevational optima of species | the cover of cold-adapted species
aim: to quantify {subject} over the past century on {who}
aim: to test whether warming explains {subject} on {who}
background: Climate warming is pushing mountain species to higher elevations, putting cold-adapted specialists at risk.
background: Historical botanical records offer a rare baseline against which recent change in mountain floras can be
    measured.
gap: whether colonisation by lowland species will cause local extinctions is uncertain
gap: the pace of the shifts relative to warming is unclear
design: We used {method} on {x3} {who}, with records dating back to 1900.
design: Using {method}, we studied {x3} {who} over {span} years.
finding: Species richness on summits increased by {pct_lo}%, and the rate of increase accelerated in the last decade.
finding: Elevational optima of species shifted upslope by {x2} metres on average ({p}).
finding: Cold-adapted specialists declined in cover where warm-adapted species colonised.
implication: the conservation of mountain biodiversity | forecasts of biodiversity change under warming
title: {subject} on {who} | Accelerating {subject} on {who} | Warming and {subject}: evidence from {method}

== ecology | seed dispersal in fragmented tropical forests
subject: seed dispersal by frugivorous birds | the loss of large-bodied seed dispersers
subject: seed dispersal by large frugivores
who: Atlantic Forest fragments in Brazil | tropical forest remnants of different sizes | secondary forests in farmland
method: camera traps | seed traps combined with observations of fruit removal | DNA barcoding of dispersed seeds
measure: seed dispersal distance | seedling recruitment | the richness of frugivore species
aim: to determine how fragmentation affects {subject} in {who}
aim: to link {subject} to tree recruitment in {who}
background: Most tropical trees depend on animals to disperse their seeds, and large frugivores are the first to vanish
    from degraded forests.
background: The loss of seed dispersers may change the composition of future forests long before adult trees die.
gap: how the loss of dispersal translates into recruitment is poorly quantified
gap: the consequences for carbon storage are uncertain
design: We monitored {x3} fruiting trees in {k} {who} using {method}.
design: Using {method}, we quantified {subject} across {k} {who} over two fruiting seasons.
finding: Large-seeded trees received {pct_hi}% fewer dispersal events in small fragments than in continuous forest.
finding: Seedling recruitment of large-seeded species declined with fragment size ({p}).
finding: Mean dispersal distance was {x2} metres, and most long-distance events were performed by toucans and guans.
implication: the restoration of tropical forest fragments | carbon storage in tropical forests
title: {subject} in {who} | Fragmentation and {subject} in {who} | Recruitment consequences of {subject}

== ecology + machine_learning | mapping plant invasions from drone and satellite imagery
subject: automated maps of invasive plants | drone-based detection of invasive shrubs
subject: satellite mapping of plant invasions
who: riparian corridors in {k} catchments | coastal dune systems | rangelands invaded by woody shrubs
method: a convolutional neural network applied to drone imagery | semantic segmentation of Sentinel-2 time series
method: a random forest classifier of multispectral imagery
measure: classification accuracy against field surveys | the invaded area | the rate of spread
aim: to evaluate {subject} across {who}
aim: to estimate rates of spread from {subject} in {who}
background: Managing plant invasions requires accurate maps of where invaders grow, but field surveys are slow and
    costly.
background: Drone and satellite imagery combined with machine learning offers a way to monitor invasions at landscape
    scale.
background: Satellite and drone imagery is abundant, but pixel-level labels for vegetation and land cover are costly.
background: Models that map vegetation often fail in regions, seasons or sensors not seen during training.
gap: model transfer between sites and seasons is rarely tested
gap: the accuracy of automated maps for management decisions is unclear
design: We trained {method} on {x4} labelled field plots and mapped invasions across {who}.
design: Using {method}, we classified imagery from {k} years across {who} and validated the maps with field surveys.
finding: Invaded patches were detected with an overall accuracy of {acc}% and an F1 score of {f1}.
finding: The invaded area increased by {pct_lo}% per year, with spread concentrated along roads and watercourses.
finding: Accuracy dropped when models trained in one catchment were applied to another, but recovered with a few local
    labels.
implication: early detection and control of invasive plants | monitoring programmes for protected areas
title: {subject} across {who} | Mapping plant invasions with {method}
title: Spread of invasive plants estimated from {subject}

== ecology + machine_learning | camera traps and automated species identification
subject: automated identification of camera-trap images | deep learning classification of wildlife images
subject: machine-labelled camera-trap data
who: camera-trap networks in East African savannas | forest camera-trap grids in Borneo
who: camera stations in temperate forests
method: a convolutional neural network fine-tuned on regional images
method: an object detector followed by species classification
method: machine-labelled detections within hierarchical occupancy models
measure: species classification accuracy | occupancy estimates | the time needed to process images
aim: to test whether {subject} gives reliable occupancy estimates across {who}
aim: to evaluate {subject} for large-scale monitoring in {who}
background: Camera traps generate millions of images, and manual classification has become a bottleneck for wildlife
    monitoring.
background: Deep learning models can identify species in camera-trap images, but their errors may bias ecological
    estimates.
background: Image classifiers trained on camera-trap data from some locations often fail at new ones, where backgrounds
    differ.
background: Wildlife datasets are long-tailed, with most images belonging to a few common species.
gap: how classification errors propagate into occupancy estimates is rarely quantified
gap: performance for rare species is poorly known
gap: accuracy on rare species is seldom reported
design: We applied {method} to {x4} thousand images from {who} and compared the results with expert labels.
design: Using {method}, we estimated occupancy for {x3} mammal species across {who}.
finding: Species were classified with {acc}% accuracy, but rare species were often confused with common ones.
finding: Occupancy estimates from automated labels were within {spct_hi} percentage points of expert-based estimates
    for most species.
finding: Automated processing reduced the time needed for image review by {rel}%.
implication: large-scale biodiversity monitoring | the integration of machine learning into wildlife surveys
finding: Accuracy dropped by {gain} points at camera locations not seen in training, especially at night.
finding: Adapting the classifier to each new camera location improved accuracy on night-time images.
title: {subject} across {who} | Occupancy estimates from {subject} | Deep learning for camera-trap monitoring in {who}

== ecology + cardiology | heart rate of free-ranging mammals
subject: heart rate and energy expenditure | seasonal variation in heart rate | winter bradycardia
who: free-ranging brown bears in Scandinavia | wild red deer in the Alps | Przewalski's horses in a semi-reserve
method: implanted heart rate and body temperature loggers | subcutaneous heart rate loggers combined with GPS collars
method: implanted ECG loggers with accelerometers
measure: daily mean heart rate | heart rate variability | estimated energy expenditure
aim: to quantify seasonal changes in {subject} in {who}
aim: to relate {subject} to weather and activity in {who}
background: Heart rate is a useful proxy for energy expenditure in free-living animals.
background: Many large mammals reduce their metabolic rate in winter, a strategy long thought to be limited to small
    hibernators.
gap: the drivers of seasonal changes in heart rate in the wild are poorly understood
gap: how animals adjust their physiology to climate is unclear
design: We recorded heart rate continuously for up to {k} years in {n_small} {who} using {method}.
design: Using {method}, we monitored {n_small} {who} through {k} annual cycles.
finding: Daily mean heart rate was {pct_hi}% lower in late winter than in summer, indicating a strong seasonal
    reduction in metabolism.
finding: Heart rate increased with ambient temperature and activity, and nightly lows coincided with lower body
    temperature ({p}).
finding: Heart rate variability rose in winter, consistent with greater parasympathetic control of the heart.
implication: energetic models of wildlife under climate change
implication: the conservation of large mammals in harsh environments
finding: ECG recordings showed sinus bradycardia down to {x3} beats per minute during winter rest, without arrhythmias.
title: {subject} in {who} | Seasonal reduction of heart rate in {who}
title: Heart rate, activity and energy expenditure in {who}

== ecology + materials_science | microplastics in freshwater ecosystems
subject: microplastic pollution in freshwater ecosystems | microplastic ingestion by freshwater invertebrates
subject: microplastics in sediments
who: rivers downstream of wastewater treatment plants | lakes in an urbanising catchment
who: streams across a land-use gradient
method: Fourier-transform infrared spectroscopy of sediment and water samples | Raman spectroscopy of gut contents
method: density separation and polymer identification
measure: microplastic concentration | polymer composition | invertebrate growth and survival
aim: to quantify {subject} in {who}
aim: to test whether {subject} affects invertebrate communities in {who}
background: Microplastics are now found in freshwater systems worldwide, but their ecological effects remain poorly
    understood.
background: Fragments of packaging polymers and synthetic fibres from laundry dominate many freshwater samples.
background: Plastic fragments accumulate in soils, rivers and oceans, where conventional polymers persist for decades.
background: Synthetic textiles release microfibres during washing, and many pass through wastewater treatment into
    rivers.
gap: field evidence of effects on organisms is scarce | how land use shapes concentrations is unclear
design: We sampled water, sediment and invertebrates at {x3} sites in {who} and identified particles by {method}.
design: Using {method}, we measured microplastics in {who} and related them to catchment land use.
finding: Microplastic concentrations were {fold} times higher downstream of wastewater effluents, and fibres made up
    {pct_hi}% of particles.
finding: Polyethylene and polypropylene were the most common polymers, followed by polyester fibres.
finding: Invertebrate taxon richness was unrelated to microplastic concentration once organic pollution was accounted
    for ({p_ns}).
implication: the monitoring and regulation of plastic pollution | the management of urban wastewater
finding: Fragments of biodegradable polyesters were rare, and most particles were conventional polyolefins.
title: {subject} in {who} | Sources and composition of {subject} | Land use and {subject} in {who}

== ecology + neuroscience | sublethal effects of neonicotinoids on bees
subject: sublethal effects of neonicotinoid pesticides on bees | neonicotinoid exposure and bumblebee foraging
subject: pesticide effects on learning in bees
who: bumblebee colonies placed near oilseed rape fields | honeybee foragers in agricultural landscapes
who: bumblebee colonies in flight cages
method: proboscis extension conditioning of olfactory learning | radio-frequency identification of foraging trips
method: field-realistic dosing of colonies
measure: olfactory learning performance | foraging efficiency | colony growth and queen production
aim: to test whether field-realistic doses impair learning and foraging in {who}
aim: to quantify {subject} under field conditions in {who}
background: Neonicotinoid insecticides act on nicotinic acetylcholine receptors in the insect brain and are widespread
    on farmland.
background: Even sublethal pesticide doses may impair the learning and navigation that bees need to forage.
gap: whether laboratory effects translate to colonies in the field is debated | effects on wild bees are poorly known
design: We exposed {x3} {who} to field-realistic doses or controls and measured performance using {method}.
design: Using {method}, we compared {who} at {x3} sites with and without neonicotinoid-treated crops.
finding: Exposed bees learned an odour-reward association {rel}% more slowly than controls ({p}).
finding: Foraging trips of exposed bees were longer and returned less pollen, and colony growth was reduced.
finding: Colonies near treated crops produced {pct_hi}% fewer new queens.
implication: pesticide regulation and risk assessment | pollinator conservation in farmland
method: calcium imaging of mushroom body neurons
finding: Calcium imaging of the mushroom bodies showed weaker odour responses in Kenyon cells of exposed bees ({p}).
title: {subject} in {who} | Neonicotinoids, learning and foraging in {who} | Field-realistic exposure and {subject}

== ecology + oncology | a transmissible cancer in Tasmanian devils
subject: devil facial tumour disease | a transmissible facial cancer | the spread of a contagious cancer
who: wild Tasmanian devil populations | devil populations across Tasmania
who: a long-monitored devil population in the northwest
method: mark-recapture monitoring with tumour biopsies | trapping surveys with tumour sequencing | long-term
    capture-recapture records
measure: population density | tumour prevalence | evidence of tumour regression
aim: to track the dynamics of {subject} in {who}
aim: to test whether {who} are evolving resistance to the tumour
background: Devil facial tumour disease is a transmissible cancer spread by biting that has caused steep declines in
    Tasmanian devils.
background: Transmissible cancers are rare in nature and offer a unique window on the evolution of host defences
    against cancer.
gap: whether populations can persist alongside the disease is uncertain
gap: the genetic basis of tumour regression is unknown
design: We analysed {span} years of {method} in {who}.
design: Using {method}, we followed {who} and sequenced {x4} tumour samples.
finding: Population density declined by {pct_hi}% after the arrival of the disease but stabilised rather than
    collapsing.
finding: Tumour regression was observed in {spct_hi}% of infected animals and was associated with variants in immune
    genes.
finding: The tumour lineage has diversified into subclones that differ in growth rate ({p}).
implication: the conservation management of Tasmanian devils | studies of cancer evolution in wildlife
finding: Tumour cells lacked MHC class I expression, which explains how the cancer evades host immunity.
title: {subject}: a long-term field study | Population dynamics of {subject} in {who} | Evolution of resistance to
    {subject}

== ecology + machine_learning | bioacoustic monitoring with deep learning
subject: passive acoustic monitoring | deep learning identification of bird song
subject: soundscape monitoring of biodiversity
who: tropical forest sites in {k} countries | restored and degraded forest plots | secondary forests of different ages
method: a convolutional neural network classifier of spectrograms | automated species detection | acoustic indices and
    machine-learned species identification
measure: bird species richness | detection probability | the occupancy of focal species
aim: to evaluate {subject} as a tool for tracking forest recovery in {who}
aim: to test whether automated detection gives reliable occupancy estimates across {who}
background: Passive acoustic monitoring records animal vocalisations continuously and over large areas at low cost.
background: Restoration projects need affordable ways to show whether biodiversity returns.
gap: automated identification is error-prone in species-rich tropical soundscapes
gap: how acoustic data compare with point counts is unclear
design: We deployed recorders at {x3} sites in {who} and analysed {x4} thousand hours of audio with {method}.
design: Using {method}, we compared acoustic detections with point counts at {x3} sites across {who}.
finding: The classifier identified species with a precision of {acc}% at the chosen score threshold.
finding: Acoustic species richness increased with forest age and reached old-growth levels after about {span} years.
finding: Occupancy estimates from acoustic data agreed with those from point counts for most species.
implication: monitoring the outcomes of forest restoration | large-scale biodiversity surveys
title: {subject} in {who} | Tracking forest recovery with {method} | Bird occupancy from {subject}

== ecology + oncology | cancer risk across mammal species
subject: cancer mortality across mammal species | Peto's paradox | cancer resistance in large, long-lived mammals
who: mammals in zoological collections | zoo-housed mammals | wild and captive mammals
method: necropsy records analysed with phylogenetic comparative models | phylogenetic regression of necropsy data
method: comparative analyses of zoo necropsy records
measure: cancer mortality risk | body mass and lifespan | diet and trophic level
aim: to test whether cancer risk scales with body size and lifespan across {who}
aim: to identify ecological and life-history correlates of {subject}
background: Large, long-lived animals have more cells and more cell divisions, yet they do not get more cancer, a
    pattern known as Peto's paradox.
background: Comparing cancer across species can reveal how natural selection has shaped defences against tumours.
gap: reliable estimates of cancer mortality across species are scarce | the role of diet and ecology in cancer risk is
    unclear
design: Using {method}, we analysed {x4} necropsies from {x3} species of {who}.
design: We combined {method} for {x3} species with data on diet, body mass and lifespan.
finding: Cancer mortality varied widely across species but did not increase with body mass or lifespan ({p_ns}).
finding: Carnivores had the highest cancer mortality, possibly because of their diet and low microbial diversity.
finding: A comparative genomic analysis showed extra copies of tumour suppressor genes in elephants and whales.
implication: comparative oncology | research on how defences against cancer evolve
title: {subject}: evidence from {who} | Body size, lifespan and {subject} | Ecology and evolution of {subject}
analysis: Phylogenetic generalised least squares models accounted for shared ancestry among species.
limitation: Zoo populations may differ from wild ones in diet, lifespan and exposure to carcinogens.

== materials_science | stable perovskite solar cells
subject: perovskite solar cells | inverted perovskite solar cells | formamidinium lead iodide perovskite films
who: devices with an active area of one square centimetre | minimodules made by blade coating | small-area laboratory
    cells
method: surface passivation with long-chain ammonium salts | a self-assembled monolayer hole-transport layer
method: additive engineering of the precursor ink
measure: power conversion efficiency | operational stability under continuous illumination
measure: non-radiative recombination losses
aim: to improve the efficiency and stability of {subject} through {method}
aim: to understand how {method} suppresses degradation in {subject}
background: Perovskite solar cells now rival silicon in efficiency, but their operational stability limits
    commercialisation.
background: Defects at perovskite surfaces and grain boundaries act as recombination centres and initiate degradation.
gap: passivation strategies that are both effective and durable are lacking
gap: the degradation pathways under operation are not fully understood
design: We fabricated {subject} using {method} and characterised them by photoluminescence and X-ray diffraction.
design: Using {method}, we prepared {who} and aged them under one-sun illumination at {temp_low} °C.
finding: The best devices reached a power conversion efficiency of {eff}%, with an open-circuit voltage of 1.1{d} V and
    a fill factor above 80%.
finding: Encapsulated cells retained {ret}% of their initial efficiency after {hours} hours of continuous operation.
finding: Photoluminescence quantum yield increased {fold}-fold, indicating reduced non-radiative recombination.
implication: stable perovskite modules | the scalable manufacturing of perovskite photovoltaics
title: Efficient and stable {subject} through {method} | {method} for durable {subject}
title: Suppressing degradation in {subject} with {method}

== materials_science | solid electrolytes for all-solid-state batteries
subject: sulfide solid electrolytes | garnet-type solid electrolytes
subject: halide solid electrolytes for all-solid-state batteries
who: all-solid-state cells with lithium metal anodes | cells with nickel-rich cathodes
who: pellets densified by hot pressing
method: aliovalent doping | an interfacial coating of lithium niobate | a solvent-free dry-film process
measure: ionic conductivity | critical current density | capacity retention
aim: to raise the ionic conductivity and interfacial stability of {subject} by {method}
aim: to understand how {method} affects lithium dendrite growth in {who}
background: All-solid-state lithium batteries promise higher energy density and safety than cells with flammable liquid
    electrolytes.
background: Solid electrolytes must combine high ionic conductivity with stable interfaces to both electrodes.
gap: interfacial degradation and dendrite penetration still limit cycle life
gap: processing routes compatible with large-scale production are scarce
design: We prepared {subject} with {method} and measured ion transport by impedance spectroscopy between -20 and 80 °C.
design: Using {method}, we assembled {who} and cycled them at 25 and 60 °C.
finding: Room-temperature ionic conductivity reached {x1} mS/cm, a {fold}-fold improvement over the undoped material.
finding: The critical current density increased to {x1b} mA/cm2, and lithium dendrite penetration was suppressed.
finding: Cells retained {ret}% of their capacity after {cycles} cycles at a rate of 0.5C.
implication: safer high-energy batteries | the manufacture of all-solid-state batteries
title: {subject} with {method} | Stable interfaces in {who} | Ion transport and dendrite suppression in {subject}

== materials_science | strong and ductile high-entropy alloys
subject: high-entropy alloys | CoCrFeMnNi high-entropy alloys | face-centred cubic high-entropy alloys
who: cold-rolled and annealed sheets | specimens with controlled grain size | as-cast and homogenised samples
method: nanoscale precipitate strengthening | heterogeneous grain structures | interstitial carbon alloying
measure: yield strength | fracture toughness at cryogenic temperatures | ductility
aim: to overcome the strength-ductility trade-off in {subject} through {method}
aim: to examine how deformation in {subject} is controlled by {method}
background: High-entropy alloys, which contain several principal elements in near-equal proportions, combine strength
    and toughness.
background: Raising strength without sacrificing ductility remains a central challenge in the design of structural
    alloys.
gap: the deformation mechanisms responsible are not fully understood
gap: the effect of processing on defect structures is unclear
design: We produced {subject} with {method} by arc melting, cold rolling and annealing, and characterised them by
    electron microscopy.
design: Tensile tests from 77 K to room temperature were combined with in situ neutron diffraction on {who}.
finding: Yield strength reached {x4} MPa while uniform elongation remained above {elong}%.
finding: Fracture toughness exceeded 200 MPa m^1/2 at 77 K, owing to deformation twinning.
finding: Transmission electron microscopy revealed dense stacking faults and nanotwins that sustained work hardening.
implication: lightweight structural components | alloys for cryogenic applications
title: {subject} with {method} | Strength and ductility of {subject} at cryogenic temperatures
title: Deformation mechanisms in {subject} with {method}

== materials_science | contacts for two-dimensional semiconductor transistors
subject: monolayer molybdenum disulfide transistors | two-dimensional semiconductor field-effect transistors
subject: MoS2 field-effect transistors
who: monolayer films grown by metal-organic chemical vapour deposition | exfoliated monolayer flakes | MoS2 films
    transferred onto 100-millimetre wafers
method: metal-organic chemical vapour deposition | van der Waals metal contacts | high-k dielectric integration
measure: contact resistance | field-effect mobility | the on/off current ratio
aim: to improve the electrical performance of {subject} with {method}
aim: to achieve uniform electronic properties in {who}
background: Two-dimensional semiconductors such as molybdenum disulfide could extend transistor scaling beyond silicon.
background: High contact resistance and variability in large-area films limit the performance of two-dimensional
    transistors.
gap: low-resistance contacts compatible with industrial processes are lacking
gap: wafer-scale uniformity has rarely been shown
design: We fabricated {x4} transistors from {who} and measured them at room temperature.
design: Using {method}, we prepared {subject} and characterised them by Raman spectroscopy, photoluminescence and
    transport.
finding: Contact resistance fell to {x4b} ohm micrometres, close to the quantum limit.
finding: Field-effect mobility averaged {x3} cm2/Vs with an on/off ratio above ten million.
finding: Device-to-device variation in threshold voltage was below {x1}% across the wafer.
implication: transistor scaling beyond silicon | the integration of two-dimensional materials in electronics
title: {subject} with {method} | Low contact resistance in {subject} | Uniformity and performance of {subject}

== materials_science | metal-organic frameworks for carbon capture
subject: metal-organic framework sorbents | amine-functionalised metal-organic frameworks
subject: water-stable metal-organic frameworks
who: humid flue gas mixtures | direct air capture conditions | simulated natural gas streams
method: post-synthetic amine grafting | linker functionalisation | pelletisation with polymer binders
measure: CO2 uptake | CO2/N2 selectivity | cycling stability under humid conditions
aim: to improve the CO2 capacity and stability of {subject} through {method}
aim: to evaluate {subject} for CO2 separation from {who}
background: Capturing carbon dioxide from flue gas or air requires sorbents that are selective, stable and cheap to
    regenerate.
background: Metal-organic frameworks offer tunable pores and high surface areas, but many degrade in the presence of
    water.
gap: performance under realistic humid conditions is rarely reported | the energy needed for regeneration remains high
design: We synthesised {subject} using {method} and measured adsorption isotherms between 25 and 75 °C.
design: Using {method}, we prepared frameworks and tested them in breakthrough experiments with {who}.
finding: CO2 uptake reached {x1} mmol/g at 0.15 bar, with a CO2/N2 selectivity above {x4}.
finding: Capacity was retained over {x4} adsorption-desorption cycles in humid gas.
finding: Density functional theory calculations showed that CO2 binds cooperatively to the amine sites.
implication: low-cost carbon capture | sorbents for direct air capture
title: {subject} under {who} | Carbon dioxide capture by {subject} | Humidity-tolerant {subject} prepared by {method}

== materials_science | thermoelectric materials with low thermal conductivity
subject: tin selenide | bismuth telluride alloys | half-Heusler compounds
who: polycrystalline samples | single crystals | flexible films
method: hierarchical nanostructuring | band convergence through alloying | point-defect engineering
measure: the thermoelectric figure of merit | lattice thermal conductivity | power factor
aim: to raise the thermoelectric performance of {subject} through {method}
aim: to decouple electrical and thermal transport in {subject} by {method}
background: Thermoelectric materials convert waste heat directly into electricity, but their efficiency remains modest.
background: High thermoelectric performance requires high electrical conductivity combined with low thermal
    conductivity.
gap: decoupling electrical and thermal transport remains difficult
gap: the stability of high-performance materials at operating temperature is uncertain
design: We prepared {who} of {subject} with {method} and measured transport between 300 and {temp} K under vacuum.
design: Using {method}, we tuned the composition of {subject} and analysed phonon scattering by electron microscopy.
finding: The figure of merit reached {zt} at {temp} K and remained stable over repeated heating cycles.
finding: Lattice thermal conductivity fell to {low_k} W/mK owing to phonon scattering at nanoscale precipitates.
finding: A prototype module reached a conversion efficiency of {x1}% across a temperature difference of 500 K for 100
    hours.
implication: waste-heat recovery | solid-state cooling
title: {method} in {subject} | High thermoelectric performance of {subject} | Low thermal conductivity in {subject}

== materials_science | degradation of nickel-rich battery cathodes
subject: nickel-rich layered oxide cathodes | single-crystal nickel-rich cathodes | cobalt-free nickel-rich cathodes
who: pouch cells with graphite anodes | coin cells cycled at high voltage | cells cycled at 45 °C
method: a conformal alumina coating grown by atomic layer deposition | dual-element doping
method: a concentration-gradient particle design
measure: capacity retention | particle cracking | oxygen release
aim: to suppress the degradation of {subject} with {method}
aim: to understand the failure of {subject} in {who}
background: Nickel-rich layered oxides deliver high capacity but degrade through particle cracking, surface
    reconstruction and oxygen loss.
background: Raising the nickel content of lithium-ion cathodes increases energy density while reducing reliance on
    cobalt.
gap: strategies that stabilise both the bulk and the surface are needed
gap: the degradation mechanisms at high voltage are not fully resolved
design: We modified {subject} with {method} and tested them in {who} for {cycles} cycles.
design: Using operando X-ray diffraction and electron microscopy, we followed {subject} with {method} in {who}.
finding: Modified cathodes retained {ret}% of their capacity after {cycles} cycles, compared with {pct_hi}% for the
    unmodified material.
finding: Intergranular cracking was largely suppressed, and the lattice contraction at high states of charge was
    reduced.
finding: Oxygen release began {x2} °C later in differential scanning calorimetry, indicating improved thermal
    stability.
implication: high-energy lithium-ion batteries | safer battery electrodes for electric vehicles
title: {subject} stabilised by {method} | Degradation of {subject} in {who}
title: Long cycle life of {subject} with {method}

== materials_science + machine_learning | machine-learning-guided discovery of battery electrolytes
subject: machine-learning-guided electrolyte design | Bayesian optimisation of liquid electrolyte formulations
subject: closed-loop discovery of battery electrolytes
who: lithium metal cells | sodium-ion coin cells | anode-free lithium pouch cells
method: a Gaussian process model with Bayesian optimisation
method: a graph neural network trained on density functional theory data
method: active learning coupled to a robotic synthesis platform
measure: Coulombic efficiency | ionic conductivity | the number of experiments needed
aim: to accelerate {subject} by combining {method} with automated experiments
aim: to identify electrolyte compositions that improve cycling in {who} with {method}
background: The space of possible electrolyte formulations is far too large to explore by trial and error.
background: Machine learning models trained on experiments or simulations can guide the search for new battery
    materials.
gap: few predicted materials have been validated experimentally | models rarely transfer across chemistries
design: Using {method}, we explored {x4} candidate formulations, testing {x3} of them in {who}.
design: We trained {method} on {x4} measured formulations and used it to propose new compositions for {who}.
finding: The best formulation reached a Coulombic efficiency of 99.{d}% and was found after only {x3} experiments.
finding: The search required {rel}% fewer experiments than random sampling to reach the same performance.
finding: Predicted ionic conductivities agreed with measurements with a mean absolute error of {small} mS/cm.
implication: autonomous laboratories for battery research | the accelerated discovery of energy materials
title: {subject} with {method} | Accelerated electrolyte discovery for {who} with {method}
title: {subject} for {who}
analysis: Each formulation was tested in at least three cells to estimate experimental noise.

== materials_science + cardiology | bioresorbable metals for cardiovascular stents
subject: biodegradable magnesium alloys for cardiovascular stents | zinc-based bioresorbable stent alloys
subject: polymer-coated bioresorbable magnesium stents
who: stents implanted in porcine coronary arteries | samples immersed in simulated body fluid
who: balloon-expanded stent prototypes
method: rare-earth microalloying | a poly(lactic acid) coating | equal-channel angular pressing
measure: corrosion rate | radial strength | endothelial cell adhesion
aim: to control the degradation rate of {subject} through {method}
aim: to test the mechanical integrity and biocompatibility of {subject} with {method}
background: Bioresorbable stents support a coronary artery during healing and then dissolve, avoiding a permanent metal
    implant.
background: Magnesium and zinc alloys are biodegradable, but their degradation and strength must be matched to vessel
    healing.
background: Strut thickness, alloy and polymer chemistry determine how a coronary stent interacts with the vessel wall.
gap: uniform corrosion over several months has been difficult to achieve
gap: the response of vascular tissue to degradation products is unclear
design: We prepared {subject} with {method} and measured corrosion by immersion and electrochemical tests for {days}
    days.
design: Using {method}, we fabricated prototypes and evaluated {who} over {weeks} weeks.
finding: The corrosion rate fell to {small} mm per year, and corrosion proceeded uniformly rather than by pitting.
finding: Radial strength was comparable to that of permanent cobalt-chromium stents, and struts remained intact for
    {weeks} weeks.
finding: Endothelial cells adhered and proliferated on the degrading surface, while platelet adhesion was reduced.
implication: next-generation bioresorbable coronary stents | biodegradable implants for vascular repair
finding: In porcine coronary arteries, late lumen loss at six months was {small} mm, similar to that of a drug-eluting
    stent.
title: {subject} with {method} | Corrosion and strength of {subject} | Degradation and biocompatibility of {subject}
analysis: Corrosion tests followed standard immersion protocols, with at least three samples per condition.

== materials_science + neuroscience | conducting polymer electrodes for neural interfaces
subject: PEDOT:PSS electrodes for neural interfaces | soft conductive hydrogels for bioelectronics
subject: organic electrochemical transistors for neural recording
who: electrodes on parylene substrates | devices implanted in rat cortex | arrays aged in saline at 37 °C
method: a crosslinked conducting polymer formulation | photolithographic patterning of conducting polymers
method: ionic liquid doping
measure: electrochemical impedance | charge injection capacity | long-term stability in physiological conditions
aim: to develop {subject} with low impedance and long-term stability using {method}
aim: to test {who} prepared with {method} for chronic use
background: Neural interfaces need electrodes that are soft, small and efficient to record and stimulate neurons over
    years.
background: Conducting polymers such as PEDOT:PSS combine mixed ionic-electronic conduction with a softness close to
    that of tissue.
background: Stiff silicon electrodes provoke glial scarring and micromotion that degrade neural recordings within
    weeks.
gap: delamination and degradation in physiological conditions limit their lifetime
gap: patterning at cellular dimensions remains challenging
gap: long-term stability in behaving animals has rarely been demonstrated
design: We fabricated {subject} using {method} and characterised them by impedance spectroscopy and cyclic voltammetry.
design: Using {method}, we prepared microelectrodes and tested {who} for {weeks} weeks.
finding: Impedance at 1 kHz was {fold} times lower than that of gold electrodes of the same size.
finding: Charge injection capacity reached {x1} mC/cm2, and performance was stable over {x4} million stimulation
    pulses.
finding: In rat cortex, the electrodes recorded single-unit activity with a signal-to-noise ratio above {k}.
implication: chronic brain-machine interfaces | soft bioelectronic implants
finding: Implanted in rat cortex for {weeks} weeks, the electrodes recorded stable single units with little glial
    scarring.
title: {subject} using {method} | Stable low-impedance {subject} | Fabrication and long-term stability of {subject}
analysis: Electrochemical measurements were repeated on at least three independently fabricated devices.

== materials_science + oncology | stimuli-responsive nanocarriers for drug delivery
subject: pH-responsive mesoporous silica nanoparticles | stimuli-responsive polymeric nanocarriers
subject: lipid-coated mesoporous silica nanoparticles
who: breast cancer cells in culture | three-dimensional tumour spheroids | cervical cancer cell lines
method: a pH-sensitive gatekeeper coating | controlled sol-gel synthesis
method: surface functionalisation with folate ligands
measure: drug loading capacity | release kinetics at acidic pH | cellular uptake
aim: to design {subject} that release their cargo selectively in the acidic tumour microenvironment using {method}
aim: to control the size, loading and release of {subject} through {method}
background: Nanocarriers that release drugs only under tumour-specific conditions could reduce the side effects of
    chemotherapy.
background: Mesoporous silica offers high surface area, tunable pores and versatile surface chemistry for drug loading.
background: Nanoparticle carriers can prolong circulation and concentrate cytotoxic drugs in tumours, but clinical
    translation is slow.
background: Dose-limiting toxicity restricts the use of many chemotherapies, motivating tumour-selective delivery
    systems.
gap: premature leakage during circulation remains a problem
gap: control over particle size and pore structure is often poor
gap: delivery efficiency in tumours remains low
design: We synthesised {subject} using {method} and characterised them by electron microscopy, nitrogen sorption and
    light scattering.
design: Using {method}, we prepared particles of {x3} to {x4} nanometres and studied release at pH 7.4 and 5.0.
finding: Drug loading reached {x2}% by weight, and less than {spct_hi}% of the drug leaked at neutral pH over 48 hours.
finding: At pH 5.0, {ret}% of the cargo was released within 24 hours.
finding: Uptake by {who} was {fold} times higher for ligand-functionalised particles.
implication: targeted cancer nanomedicine | drug delivery systems with reduced systemic toxicity
title: {subject} using {method} | Acid-triggered drug release from {subject}
title: Design of {subject} for tumour-selective delivery
analysis: Release experiments were run in triplicate, and cellular uptake was quantified by flow cytometry.
limitation: Whether the carriers behave in the same way in vivo remains to be tested.

== materials_science + ecology | biodegradation of bioplastics in natural environments
subject: biodegradable polyester blends | polyhydroxyalkanoate packaging films
subject: compostable poly(lactic acid) composites
who: natural seawater | agricultural soil | freshwater sediment
method: melt blending with plasticisers | reactive extrusion | incorporation of cellulose nanofibres
measure: biodegradation rate | tensile strength | the formation of microplastic fragments
aim: to relate the composition of {subject} to their degradation in {who}
aim: to improve the mechanical properties of {subject} through {method} without slowing biodegradation
background: Biodegradable plastics are promoted as a solution to plastic pollution, yet many degrade only in industrial
    compost.
background: The rate at which a polymer degrades depends on its crystallinity, its composition and the microbial
    activity around it.
gap: degradation in natural environments is rarely measured
gap: whether degradation leaves persistent fragments is unclear
design: We prepared {subject} by {method} and measured biodegradation in {who} by CO2 evolution over {weeks} weeks.
design: Using {method}, we produced films and exposed them to {who} for {weeks} weeks.
finding: Films lost {pct_hi}% of their mass in {who}, whereas poly(lactic acid) controls barely changed.
finding: Tensile strength increased by {x2}% with cellulose nanofibres, without slowing biodegradation.
finding: Fragments smaller than 5 mm formed during degradation but had disappeared by the end of the experiment.
implication: packaging that degrades in the environment | biodegradable mulch films for agriculture
background: Plastic fragments accumulate in soils, rivers and oceans, where conventional polymers persist for decades.
background: Microplastics are now found in freshwater systems worldwide, but their ecological effects remain poorly
    understood.
finding: Exposure to degrading films did not reduce the survival of freshwater invertebrates ({p_ns}).
title: {subject} in {who}: biodegradation and mechanics | Biodegradation of {subject} in {who}
title: {subject} prepared by {method}
analysis: Each degradation test was run in triplicate, with cellulose as a positive control.
analysis: Mass loss, molecular weight and surface erosion were tracked at regular intervals.

== materials_science + machine_learning | machine-learned interatomic potentials for ion transport
subject: machine-learned interatomic potentials for solid electrolytes | lithium-ion diffusion in solid electrolytes
subject: ion migration in superionic conductors
who: lithium thiophosphate electrolytes | garnet-type oxide electrolytes | sodium superionic conductors
method: an equivariant neural network potential trained on density functional theory data | a moment tensor potential
    fitted by active learning | a graph neural network potential fine-tuned on ab initio data
measure: lithium-ion diffusivity | the activation energy for ion migration | agreement with measured conductivity
aim: to simulate ion transport in {who} with near-ab initio accuracy using {method}
aim: to reveal the atomistic mechanism of {subject}
background: Ion transport in solid electrolytes depends on collective hopping events that are too slow for ab initio
    molecular dynamics.
background: Machine-learned potentials can reproduce density functional theory energies at a fraction of the cost.
background: Graph neural networks predict properties of crystals from their structure at a fraction of the cost of
    density functional theory.
background: Equivariance to rotations and translations is a strong inductive bias for models of atomic systems.
gap: their accuracy for long simulations at operating temperature is rarely tested against experiment
gap: the role of grain boundaries is poorly understood
gap: models rarely generalise across chemistries
design: We trained {method} on {x4} density functional theory configurations and ran nanosecond simulations of {who}.
design: Using {method}, we simulated {who} with up to {x3} thousand atoms at 300 to {temp} K for ten nanoseconds.
finding: The predicted activation energy of {small} eV agreed with impedance measurements within experimental error.
finding: Simulations revealed concerted migration of lithium ions coupled to rotations of the anion framework.
finding: Grain boundaries reduced ionic conductivity by a factor of {fold} at room temperature.
implication: the discovery of faster solid electrolytes | safer high-energy batteries
analysis: Energies and forces were validated against held-out density functional theory calculations.
analysis: Diffusivities were averaged over independent trajectories, with uncertainties from block averaging.
finding: The potential transferred to related compositions without retraining, with force errors below {x3} meV per
    angstrom.
finding: The potential reduced force errors by {rel}% relative to a classical force field fitted to the same data.
title: {subject} from {method} | Ion transport in {who} simulated with {method} | Atomistic mechanisms of {subject}
limitation: Remaining challenges include long-range electrostatics and the transfer of potentials to new chemistries.

== materials_science + cardiology | drug-eluting polymer coatings for stents
subject: biodegradable polymer coatings for drug-eluting stents | controlled sirolimus release from stent coatings
subject: ultrathin polymer films on cobalt-chromium stents
who: coated stents expanded in vitro | coatings immersed in phosphate-buffered saline at 37 °C
who: stents implanted in rabbit iliac arteries
method: ultrasonic spray coating of poly(lactic-co-glycolic acid) | layer-by-layer deposition | electrospray deposition
    on the abluminal surface
measure: drug release kinetics | coating integrity after expansion | polymer degradation time
aim: to control drug release and coating integrity of {subject} through {method}
aim: to relate the degradation of {subject} to drug release in {who}
background: The polymer coating of a drug-eluting stent controls how fast the antiproliferative drug reaches the vessel
    wall.
background: Cracking and delamination of stent coatings during balloon expansion can release particles and alter drug
    delivery.
background: Thinner stent struts and biodegradable polymer coatings were developed to reduce vessel injury and late
    inflammation.
background: The polymer that carries the drug on a stent can persist for years and has been linked to delayed healing.
gap: how coating thickness and polymer composition govern release is not fully understood
gap: coatings that degrade completely without inflammation remain a challenge
design: We deposited {subject} by {method} and measured drug release over {weeks} weeks by liquid chromatography.
design: Using {method}, we coated cobalt-chromium stents and examined {who} by scanning electron microscopy.
finding: Sirolimus release followed first-order kinetics, with {pct_hi}% released within 30 days.
finding: Coatings remained intact after balloon expansion to 3.5 mm, without cracking or delamination.
finding: The polymer degraded within {x3} weeks, and neointimal area in rabbit arteries was {rel}% lower than with bare
    metal stents.
implication: next-generation drug-eluting stents | controlled-release coatings for implants
title: {subject} by {method} | Drug release and degradation of {subject} | Coating integrity of {subject}
analysis: Release was measured in triplicate, and coating morphology was examined before and after expansion.

== materials_science + neuroscience | graphene transistor arrays for brain recording
subject: graphene solution-gated field-effect transistors | flexible graphene microtransistor arrays
subject: graphene neural interfaces
who: arrays on polyimide substrates | devices implanted on rat cortex | transistors in saline
method: chemical vapour deposition of graphene with wafer-scale transfer | parylene encapsulation of graphene channels
    | a thinned polyimide substrate
measure: transconductance | noise in the infraslow frequency band | recording stability in vivo
aim: to record wide-band brain activity, including infraslow signals, with {subject}
aim: to improve the sensitivity and stability of {subject} through {method}
background: Infraslow brain signals, such as spreading depolarisations, are missed by conventional electrodes with
    capacitive coupling.
background: Graphene combines high carrier mobility, flexibility and electrochemical stability in contact with tissue.
background: Stiff silicon electrodes provoke glial scarring and micromotion that degrade neural recordings within
    weeks.
gap: device-to-device variability limits large arrays | long-term stability in vivo has rarely been shown
gap: long-term stability in behaving animals has rarely been demonstrated
design: We fabricated {subject} using {method} and characterised them in saline and on rat cortex.
design: Using {method}, we produced arrays with {x3} channels and tested {who} for {weeks} weeks.
finding: Transconductance reached {x1} mS/V with low noise down to 0.01 Hz.
finding: The arrays recorded cortical spreading depolarisations and seizure activity in rats with high spatial
    resolution.
finding: Device characteristics varied by less than {x1b}% across the array and remained stable for {weeks} weeks in
    saline.
implication: wide-band neural interfaces | flexible bioelectronics for clinical monitoring
title: {subject} using {method} | Wide-band brain recording with {subject} | Infraslow signals recorded by {subject}
analysis: Electrical measurements were repeated on at least three independently fabricated arrays.

== materials_science + ecology | microfibre release from synthetic textiles
subject: microfibre release from synthetic textiles | fibre shedding from polyester fabrics
subject: textile finishes that reduce microfibre shedding
who: polyester and polyamide fabrics | knitted fleece garments | woven polyester fabrics
method: a polymer surface coating | mechanical finishing of the fabric surface | low-temperature plasma treatment
measure: microfibres released per wash | fibre length distribution | fabric abrasion resistance
aim: to quantify {subject} and to test whether {method} reduces it
aim: to relate fabric structure to {subject} in {who}
background: Synthetic textiles release microfibres during washing, and many pass through wastewater treatment into
    rivers.
background: Microfibres are among the most common microplastics in freshwater and marine samples.
background: Fragments of packaging polymers and synthetic fibres from laundry dominate many freshwater samples.
background: Microplastics are now found in freshwater systems worldwide, but their ecological effects remain poorly
    understood.
gap: how fabric construction controls shedding is poorly understood
gap: standard methods to measure shedding are lacking
design: We washed {who} for {x3} cycles in domestic machines and counted released fibres by filtration and microscopy.
design: Using {method}, we treated {who} and measured shedding over repeated washing cycles.
finding: Fabrics released up to {x4} thousand microfibres per wash, most of them shorter than 1 mm.
finding: The treatment reduced microfibre release by {rel}% without reducing the strength of the fabric.
finding: Shedding was highest in the first washes and fell by half after {k} cycles.
implication: textiles that shed fewer microfibres | laundry practices that release fewer microfibres
title: {subject} in {who} | Reducing {subject} with {method} | Fabric structure and {subject}
analysis: Each fabric was tested in triplicate under standardised washing conditions.

== materials_science + oncology | plasmonic nanoparticles for photothermal tumour therapy
subject: gold nanoshells for photothermal therapy | plasmonic gold nanorods | near-infrared-absorbing gold
    nanoparticles
who: tumour-bearing mice | breast cancer cell cultures | tissue-mimicking phantoms
method: seed-mediated growth with a controlled aspect ratio | silica coating and PEGylation
method: surface functionalisation with tumour-targeting antibodies
measure: photothermal conversion efficiency | tumour temperature under laser irradiation | colloidal stability
aim: to tune the optical absorption of {subject} to the near-infrared window through {method}
aim: to improve the photothermal performance and stability of {subject} with {method}
background: Nanoparticles that absorb near-infrared light can heat and destroy tumours with little damage to
    surrounding tissue.
background: The optical resonance of gold nanostructures depends on their size and shape and can be tuned for
    deep-tissue heating.
background: Nanoparticle carriers can prolong circulation and concentrate cytotoxic drugs in tumours, but clinical
    translation is slow.
gap: reshaping of nanorods under repeated irradiation limits their performance | the fate of the particles after
    treatment is unclear
design: We synthesised {subject} by {method} and characterised them by electron microscopy and optical spectroscopy.
design: Using {method}, we prepared particles and tested them in {who} under 808 nm laser irradiation.
finding: Photothermal conversion efficiency reached {x2}%, and the particles kept their shape after {k} heating cycles.
finding: Under laser irradiation, tumour temperature rose above 50 °C within five minutes, and tumours regressed in
    {pct_hi}% of mice.
finding: Antibody-functionalised particles accumulated in tumours {fold} times more than untargeted particles.
analysis: Optical and thermal measurements were repeated on three independently synthesised batches.
implication: photothermal cancer therapy | nanomaterials for image-guided tumour treatment
title: {subject} prepared by {method} | Photothermal tumour therapy with {subject} | Near-infrared heating by {subject}
limitation: The long-term toxicity and clearance of the particles remain to be established.

== machine_learning | self-supervised visual representation learning
subject: contrastive self-supervised learning | self-supervised visual representation learning
subject: contrastive pre-training with hard negatives
who: ImageNet and {k} transfer benchmarks | image classification benchmarks with limited labels | CIFAR-100 and STL-10
method: a momentum encoder with a large negative queue | a variance-invariance-covariance regulariser
method: an augmentation-aware projection head
measure: linear-probe accuracy | transfer accuracy | representation collapse
aim: to understand why {subject} avoids representational collapse
aim: to make {subject} work without very large batch sizes
background: Self-supervised methods learn visual representations from unlabelled images that rival supervised
    pre-training.
background: Contrastive objectives pull together augmented views of an image while pushing apart views of other images.
gap: their dependence on large batches and hand-designed augmentations is poorly understood
gap: why some objectives collapse while others do not remains unclear
design: We propose {method} and evaluate it on {who}.
design: We train ResNet-50 and ViT encoders with {method} and compare them with {k} strong baselines on {who}.
finding: Linear-probe accuracy improves by {gain} points over the strongest baseline at the same training budget.
finding: With only 1% of the labels, fine-tuned models reach {acc}% of the accuracy of fully supervised training.
finding: Ablations show that most of the gain comes from the choice of augmentations rather than from the loss.
implication: label-efficient training of vision models | the principled design of self-supervised objectives
title: {subject} with {method} | Avoiding collapse in {subject} | Rethinking {subject}: an evaluation on {who}

== machine_learning | out-of-distribution detection and calibration
subject: out-of-distribution detection | uncertainty estimation for deep classifiers
subject: calibration under distribution shift
who: image classification benchmarks with near and far distribution shifts | ImageNet variants with natural shifts
who: text classification tasks with domain shift
method: energy-based scores computed from logits | deep ensembles | temperature scaling with a learned shift detector
measure: the AUROC for detecting shifted inputs | expected calibration error
measure: the false positive rate at 95% true positive rate
aim: to compare methods for {subject} under realistic shifts
aim: to improve {subject} without retraining the classifier
background: Deep classifiers are often confidently wrong on inputs that differ from their training data.
background: Reliable uncertainty estimates are essential when models are deployed in safety-critical applications.
gap: methods are usually evaluated on artificial benchmarks | many methods require retraining or access to outlier data
design: We evaluate {method} against {k} baselines on {who}.
design: We introduce a benchmark for {subject} built on {who} and use it to compare {method} with existing methods.
finding: With {method}, the false positive rate at 95% true positive rate falls by {rel}% relative to the softmax
    baseline.
finding: Expected calibration error is reduced by {rel}% on shifted data, while in-distribution accuracy is unchanged.
finding: No method is consistently best across shift types, and gains on far shifts do not transfer to near shifts.
implication: the reliable deployment of machine learning systems | more realistic evaluation of uncertainty methods
title: {subject} on {who} | A benchmark for {subject} on {who} | {subject} with {method}

== machine_learning | depth and oversmoothing in graph neural networks
subject: graph neural networks | message-passing neural networks | graph transformers
who: node classification benchmarks | molecular property prediction datasets | heterophilous graph benchmarks
method: residual connections with normalisation | curvature-based rewiring of the input graph
method: positional encodings from the graph Laplacian
measure: node classification accuracy | oversmoothing of node representations | training time
aim: to explain why {subject} degrade with depth and how to prevent it
aim: to improve the expressiveness of {subject}
background: Graph neural networks learn node representations by repeatedly aggregating information from neighbours.
background: Stacking many message-passing layers often makes node representations indistinguishable, a problem called
    oversmoothing.
gap: whether oversmoothing or oversquashing limits performance is debated
gap: deep models rarely outperform shallow ones in practice
design: We analyse {subject} theoretically and propose {method}, evaluated on {k} {who}.
design: We train {subject} with up to {x3} layers using {method} and compare them with {k} baselines on {who}.
finding: Accuracy remains stable up to {x3} layers, whereas standard message passing degrades after four.
finding: On heterophilous graphs, the method improves accuracy by {gain} points on average.
finding: The method reduces oversquashing at a cost of less than {rel}% additional training time.
implication: deep graph learning | the design of message-passing architectures
title: Deep {subject} with {method} | Oversmoothing in {subject} on {who}
title: {subject} on {who}: depth and expressiveness

== machine_learning | federated learning with heterogeneous clients
subject: federated learning with heterogeneous clients | personalised federated learning
subject: communication-efficient federated optimisation
who: simulated clients with non-identically distributed data | cross-device language modelling tasks
who: image datasets partitioned across hundreds of clients
method: client drift correction with control variates | a scheme of sparse model updates | a method with personalised
    adapters on each client
measure: test accuracy | communication cost | convergence speed
aim: to improve convergence in {subject}
aim: to reduce the communication cost of {subject}
background: Federated learning trains models across many devices without centralising their data.
background: Differences in data distributions across clients slow convergence and can reduce accuracy.
gap: existing methods often trade accuracy for communication | theoretical guarantees rarely match practice
design: We propose {method} and evaluate it on {who}.
design: We compare {method} with {k} federated optimisation baselines on {who}, varying the degree of heterogeneity.
finding: The method reaches target accuracy in {rel}% fewer communication rounds than federated averaging.
finding: Communication cost falls by a factor of {fold} with an accuracy loss below {spct_lo} points.
finding: We prove convergence at the rate of centralised stochastic gradient descent under bounded heterogeneity.
implication: privacy-preserving learning on mobile devices | scalable federated training
title: {subject} with {method} | Convergence of {subject} on {who} | {subject}: {method}

== machine_learning | retrieval-augmented language models
subject: retrieval-augmented language models | retrieval-augmented generation | retrieval-augmented question answering
who: open-domain question answering benchmarks | multi-hop reasoning tasks | long-form factual generation tasks
method: a learned retriever trained jointly with the generator | re-ranking of retrieved passages by the language model
method: self-verification of generated claims against retrieved evidence
measure: exact-match accuracy | factual precision | retrieval recall at ten
aim: to reduce hallucination in {subject}
aim: to improve the factual accuracy of {subject}
background: Large language models generate fluent text but often state facts that are not supported by any source.
background: Retrieval augmentation conditions generation on passages retrieved from an external corpus.
gap: retrieved passages are often ignored or misused by the model | the evaluation of factuality remains difficult
design: We introduce {method} and evaluate it on {who}.
design: We combine {subject} with {method} and test models of several sizes on {who}.
finding: Exact-match accuracy improves by {gain} points over a retrieval-free model of the same size.
finding: The share of unsupported claims falls by {rel}% in human evaluation.
finding: Smaller retrieval-augmented models match larger models without retrieval.
implication: trustworthy language model applications | the factual evaluation of text generation
title: {subject} with {method} | Reducing hallucination in {subject} | {subject} on {who}

== machine_learning | offline reinforcement learning
subject: offline reinforcement learning | sample-efficient reinforcement learning | model-based reinforcement learning
who: continuous control benchmarks | simulated robotic manipulation tasks | Atari games with limited interaction
method: conservative value estimation | a learned world model with uncertainty penalties
method: data augmentation of observations
measure: normalised return | sample efficiency | value overestimation
aim: to make {subject} reliable with limited data
aim: to reduce value overestimation in {subject}
background: Reinforcement learning agents usually need millions of interactions, which is impractical in robotics and
    healthcare.
background: Offline reinforcement learning learns policies from fixed datasets, but value errors for unseen actions
    compound.
gap: simple methods often match complex ones, and it is unclear why | methods are sensitive to hyperparameters
design: We propose {method} and evaluate it on {who} across {seeds} random seeds.
design: We benchmark {method} against {k} baselines on {who} with matched tuning budgets.
finding: The method improves normalised return by {rel}% on average and reduces variance across seeds.
finding: With a tenth of the data, the method reaches {acc}% of the return of the best baseline trained on the full
    dataset.
finding: Much of the reported gap between methods disappears when hyperparameters are tuned equally.
implication: reinforcement learning for robotics | reproducible evaluation in reinforcement learning
title: {subject} with {method} | Reliable {subject} on {who} | {subject}: {method}

== machine_learning | low-bit quantisation of large language models
subject: post-training quantisation of large language models | low-bit inference for transformers
subject: mixed-precision quantisation of transformer weights
who: language modelling and zero-shot reasoning benchmarks | long-context retrieval tasks | code generation benchmarks
method: outlier-aware weight rounding | activation smoothing before quantisation | second-order weight updates
measure: perplexity | zero-shot accuracy | memory footprint and latency
aim: to compress large language models to four bits without retraining
aim: to reduce the accuracy loss of {subject}
background: Large language models are expensive to serve because of their memory footprint and bandwidth demands.
background: A few activation channels with large outliers make transformers difficult to quantise to low precision.
gap: accuracy drops sharply below eight bits | existing methods require costly calibration
design: We apply {method} to language models with 7 to 70 billion parameters, using {x4} calibration sequences, and
    evaluate them on {who}.
design: We evaluate {method} for {subject} on {who}, comparing it with {k} existing quantisation methods.
finding: Four-bit models lose less than {small} perplexity points relative to 16-bit baselines.
finding: Memory use falls by a factor of 3.{d}, and decoding is {fold} times faster on the same hardware.
finding: Zero-shot accuracy remains within {spct_lo} points of the full-precision model.
implication: efficient inference of large language models | deployment on consumer hardware
title: {subject} with {method} | {subject}: {method} | Accurate {subject} without retraining

== machine_learning + cardiology | self-supervised learning for ECG classification
subject: self-supervised pre-training for electrocardiogram classification
subject: contrastive learning of ECG representations
subject: label-efficient arrhythmia classification
who: public 12-lead ECG datasets | the PTB-XL and Chapman ECG databases | single-lead ambulatory ECG recordings
method: an encoder with a contrastive objective over patients and leads | a transformer encoder with masked signal
    modelling | a one-dimensional convolutional network with temporal augmentations
measure: macro-averaged AUROC across arrhythmia classes | accuracy with 1% of the labels | robustness to noise
aim: to learn ECG representations that transfer across datasets and devices
aim: to reduce the number of labelled ECGs needed for arrhythmia classification
background: Deep networks classify arrhythmias from the electrocardiogram accurately when large labelled datasets are
    available.
background: Labelling ECGs requires cardiologists, while unlabelled recordings are abundant in hospital archives.
gap: whether pre-trained representations transfer across devices and populations is unclear
gap: standard augmentations may distort physiological features
gap: their performance across age, sex and ethnic groups has rarely been examined
design: We pre-train {method} on {x4} thousand unlabelled recordings and fine-tune on {who}.
design: We compare {method} with supervised training and {k} self-supervised baselines on {who}.
finding: Pre-training improves macro-averaged AUROC from {auc_lo} to {auc} when only 1% of the labels are used.
finding: Representations transfer from 12-lead to single-lead recordings with a loss of less than {spct_lo} points.
finding: Augmentations that preserve the QRS morphology are essential, while random cropping alone gives little
    benefit.
implication: label-efficient medical time-series models | foundation models for physiological signals
who: ECGs paired with echocardiograms from {k} hospitals
background: Deep learning on the electrocardiogram can detect arrhythmias and a reduced ejection fraction, but labels
    are scarce.
background: Left ventricular systolic dysfunction is often asymptomatic, and treatment started early improves survival.
background: Deep learning models can detect a low ejection fraction from a standard ECG, but evidence from routine care
    is limited.
finding: Fine-tuned on a few hundred labelled ECGs, the model detects a low ejection fraction with an AUROC of {auc}.
finding: Performance is similar in women and men, but calibration drifts in patients with bundle branch block.
design: We assemble {x4} thousand ECGs from patients at {k} hospitals, with labels from echocardiography, and compare
    {method} with supervised training.
title: {subject} on {who} | {subject}: {method} | Transferable ECG representations from {method}

== machine_learning + oncology | multiple-instance learning for whole-slide images
subject: multiple-instance learning for whole-slide images | weakly supervised learning in computational pathology
subject: attention-based aggregation of histopathology patches
who: cancer subtyping benchmarks from The Cancer Genome Atlas | the CAMELYON16 lymph node metastasis dataset
who: whole-slide images from {k} hospitals
method: a transformer-based aggregator over patch embeddings | a pathology foundation model as feature extractor
method: stain augmentation and domain-adversarial training
measure: slide-level AUROC | performance under site shift | computational cost
aim: to improve {subject} when only slide-level labels are available
aim: to make {subject} robust to differences between hospitals
background: Whole-slide images contain billions of pixels, while diagnostic labels are usually available only for whole
    slides.
background: Multiple-instance learning treats a slide as a bag of patches and learns which patches drive the
    slide-level label.
background: Stage alone is an imperfect guide to adjuvant chemotherapy in colorectal cancer, and many patients are
    over- or undertreated.
background: Digitised histopathology slides contain prognostic information that pathologists cannot easily quantify.
gap: models often overfit to staining differences between hospitals
gap: attention weights are often mistaken for explanations
gap: few computational pathology biomarkers have been validated in independent cohorts
design: We propose {method} and evaluate it on {who}.
design: We compare {method} with {k} multiple-instance learning baselines on {who}, holding out entire hospitals for
    testing.
finding: Slide-level AUROC improves from {auc_lo} to {auc} on held-out hospitals.
finding: The model localises metastases about as well as patch-level supervision, using only slide labels.
finding: Foundation-model features reduce training time by a factor of {fold} without loss of accuracy.
implication: robust computational pathology | the clinical validation of weakly supervised models
who: whole-slide images of colorectal cancer with survival outcomes
finding: On colorectal cancer slides, the predicted risk stratifies disease-specific survival (hazard ratio {hr_up}).
finding: The predicted risk score remains prognostic after adjustment for tumour stage and microsatellite instability
    ({p}).
design: We collect slides from {n_med} patients with colorectal cancer at {k} hospitals and compare {method} with {k}
    baselines, holding out one hospital.
title: {subject} with {method} | Robust {subject} across hospitals | {subject}: {method}

== machine_learning + neuroscience | biologically plausible learning rules
subject: biologically plausible alternatives to backpropagation
subject: surrogate-gradient training of spiking neural networks
subject: local learning rules for deep networks
who: image classification benchmarks | neuromorphic event-camera datasets | speech command recognition tasks
method: feedback alignment with learned feedback weights | a surrogate gradient with adaptive thresholds
method: local predictive coding updates
measure: classification accuracy | energy per inference on neuromorphic hardware | the gap to backpropagation
aim: to narrow the accuracy gap between networks trained with {method} and conventional deep networks
aim: to scale {subject} to deeper networks
background: The brain learns with local synaptic updates, whereas backpropagation requires the precise transport of
    error signals.
background: Spiking neural networks communicate with discrete events, like neurons, and can run efficiently on
    neuromorphic chips.
background: Comparisons of artificial networks with neural data have become a central tool for testing theories of
    sensory processing.
gap: local learning rules still fall short of backpropagation on difficult tasks
gap: training deep spiking networks remains unstable
design: We train convolutional networks with {method} and evaluate them on {who}.
design: We analyse the learning dynamics of {method} and compare it with backpropagation and {k} alternatives on {who}.
finding: The accuracy gap to backpropagation shrinks to {gain} points on the largest benchmark.
finding: On neuromorphic hardware, the trained spiking networks use {fold} times less energy per inference than a GPU
    baseline.
finding: Learned feedback weights align with forward weights early in training, which explains why learning succeeds.
implication: learning algorithms compatible with neural circuits | energy-efficient neuromorphic computing
finding: Networks trained with the local rule predict responses in primate visual cortex as well as those trained with
    backpropagation.
design: We train networks with {method} and compare their internal representations with recordings from macaque visual
    cortex.
title: {subject} with {method} | Scaling {subject} to deeper networks | {method} on {who}

== machine_learning + materials_science | graph networks for crystal property prediction
subject: equivariant graph neural networks for crystal property prediction
subject: machine-learning models of crystalline materials
subject: graph networks for atomistic simulation
who: the Materials Project database | benchmarks of formation energies and band gaps
who: molecular dynamics datasets of crystals
method: an E(3)-equivariant message-passing architecture | a graph network pre-trained on structural relaxation
    trajectories
method: a periodic transformer with learned distance encodings
measure: the mean absolute error of formation energy | data efficiency | extrapolation to unseen compositions
aim: to improve the accuracy and data efficiency of {subject}
aim: to test whether {subject} generalise to compositions outside the training distribution
background: Graph neural networks predict properties of crystals from their structure at a fraction of the cost of
    density functional theory.
background: Equivariance to rotations and translations is a strong inductive bias for models of atomic systems.
background: Machine-learned potentials can reproduce density functional theory energies at a fraction of the cost.
gap: benchmarks overestimate performance when training and test compositions are similar
gap: models rarely generalise across chemistries
gap: their accuracy for long simulations at operating temperature is rarely tested against experiment
design: We propose {method} and evaluate it on {who}.
design: We train {method} on {x4} thousand structures from {who} and test on held-out chemical systems.
finding: The model lowers the mean absolute error of formation energy to {x3} meV per atom.
finding: Pre-training halves the number of labelled structures needed to reach a given accuracy.
finding: Errors increase by a factor of {fold} on compositions absent from training, a gap that random splits hide.
implication: accelerated materials screening | realistic benchmarks for materials machine learning
who: molecular dynamics trajectories of lithium-ion conductors
finding: Used as an interatomic potential, the model reproduces lithium diffusivities from ab initio simulations within
    {rel}%.
design: We train {method} on {x4} thousand density functional theory calculations of lithium-ion conductors and test on
    unseen chemistries.
title: {subject} on {who} | {subject}: {method} | Generalisation of {subject} to unseen compositions

== machine_learning + ecology | distribution shift in camera-trap species classification
subject: domain generalisation for camera-trap species classification
subject: robustness of wildlife image classifiers
subject: long-tailed recognition of animal species
who: the iWildCam benchmark | camera-trap images from {k} countries | a long-tailed dataset of wildlife images
method: test-time adaptation of batch normalisation statistics | self-supervised pre-training on images from new sites
method: a loss reweighted by class frequency
measure: accuracy at unseen locations | macro-averaged F1 over species | accuracy on rare classes
aim: to improve {subject} without labels from the target locations
aim: to study how changes in background and lighting harm {subject}
background: Image classifiers trained on camera-trap data from some locations often fail at new ones, where backgrounds
    differ.
background: Wildlife datasets are long-tailed, with most images belonging to a few common species.
background: Camera traps generate millions of images, and manual classification has become a bottleneck for wildlife
    monitoring.
background: Deep learning models can identify species in camera-trap images, but their errors may bias ecological
    estimates.
gap: standard domain adaptation methods rarely help on such natural shifts
gap: accuracy on rare species is seldom reported
gap: how classification errors propagate into occupancy estimates is rarely quantified
design: We evaluate {method} on {who}, holding out entire camera locations for testing.
design: We propose {method} and compare it with {k} domain generalisation baselines on {who}.
finding: Accuracy at unseen locations improves by {gain} points, with the largest gains on night-time images.
finding: Macro-averaged F1 over species rises from {f1_lo} to {f1}.
finding: Most methods that improve average accuracy lower accuracy on rare species.
implication: reliable automated wildlife monitoring | benchmarks of natural distribution shift
finding: Errors on rare species bias downstream occupancy estimates, and the proposed method removes most of this bias.
finding: Automated labels cut image review time by {rel}%, and occupancy estimates stay close to those from expert
    labels.
design: We assemble {x4} thousand camera-trap images of {x3} mammal species from {k} national parks and evaluate
    {method} at parks unseen in training.
title: {subject} on {who} | {subject}: {method} | Improving {subject} at new locations

== machine_learning + neuroscience | self-supervised foundation models for EEG
subject: self-supervised pre-training for EEG decoding | foundation models of electroencephalography
subject: transferable EEG representations
who: sleep staging and motor imagery benchmarks | clinical EEG archives and seizure detection tasks
who: EEG datasets recorded with different electrode montages
method: a transformer with masked autoencoding of EEG patches | an encoder with contrastive learning across recording
    channels | a channel-agnostic transformer over tokenised EEG signals
measure: balanced accuracy | cross-dataset transfer | performance with few labels
aim: to learn EEG representations that transfer across datasets, montages and tasks
aim: to reduce the number of labelled recordings needed to train EEG decoders
background: EEG decoding models are usually trained for one task and one dataset, because recordings differ in montage
    and noise.
background: Large collections of unlabelled EEG exist in hospitals and research archives.
background: Brain-computer interfaces translate neural activity into text or sound and could restore natural
    communication.
gap: it is unclear whether pre-training scales for neural signals as it does for language and images
gap: evaluation protocols differ across studies
gap: the stability of decoders over months is unclear
design: We pre-train {method} on {x4} thousand hours of unlabelled EEG and fine-tune on {who}.
design: We compare {method} with {k} supervised and self-supervised baselines on {who}, using subject-independent
    splits.
finding: Pre-training improves balanced accuracy by {gain} points on average, with the largest gains when labels are
    scarce.
finding: Performance grows with the amount of pre-training data but saturates beyond a few thousand hours.
finding: Representations transfer to unseen montages with a loss of less than {spct_lo} points.
implication: general-purpose models of neural signals | clinical EEG analysis with few labels
finding: Fine-tuned on a few hours of data, the model decodes imagined words from EEG well above chance.
design: We pre-train {method} on EEG recorded from {n} patients during clinical epilepsy monitoring and fine-tune on
    {who}.
title: {subject} on {who} | {subject}: {method} | Scaling {subject} across datasets

== machine_learning + cardiology | deep learning on electronic health record time series
subject: sequence models for electronic health records | models of irregularly sampled clinical time series
subject: representation learning for patient records
who: the MIMIC-IV intensive care database | electronic health records of patients with heart failure
who: benchmark tasks for in-hospital mortality and readmission
method: a transformer with continuous-time embeddings | a recurrent network with learned imputation of missing values
method: a transformer with contrastive pre-training on patient timelines
measure: AUROC for 30-day readmission | calibration under temporal shift | performance on under-represented patient
    groups
aim: to model irregularly sampled clinical data without hand-crafted imputation
aim: to learn patient representations that transfer across prediction tasks
background: Electronic health records are irregularly sampled, and their missing values carry information about care.
background: Models that predict readmission or mortality from health records are widely studied but often poorly
    calibrated.
background: Readmission within 30 days is common after hospitalisation for heart failure and is costly for patients and
    health systems.
background: Established risk scores for heart failure predict readmission poorly, partly because they use few
    variables.
gap: most methods are evaluated on a single hospital with a random split | gains over logistic regression are often
    small
gap: whether machine learning improves on simple clinical models is disputed
gap: models are rarely tested for fairness across patient groups
design: We propose {method} and evaluate it on {who}.
design: We compare {method} with gradient-boosted trees and {k} deep learning baselines on {who}, using temporal
    splits.
finding: The model improves the AUROC for readmission after heart failure from {auc_lo} to {auc}.
finding: Calibration degrades under temporal shift for all methods, and recalibration on recent data restores it.
finding: Performance gaps between patient groups narrow with the proposed pre-training but do not close.
implication: reliable clinical prediction models | evaluation standards for machine learning in healthcare
design: We train {method} on the records of {n} patients hospitalised for heart failure and evaluate it on later
    admissions.
title: {subject} on {who} | {subject}: {method} | Temporal shift and {subject}

== machine_learning + ecology | segmentation of remote sensing imagery
subject: semantic segmentation of satellite imagery | self-supervised pre-training for remote sensing
subject: domain adaptation for vegetation mapping
who: Sentinel-2 land-cover benchmarks | high-resolution drone imagery of vegetation | multispectral time series from
    {k} regions
method: a vision transformer pre-trained by masked autoencoding on unlabelled imagery | a U-Net with temporal attention
method: a segmentation network trained with pseudo-labels across regions
measure: mean intersection over union | accuracy in unseen regions | label efficiency
aim: to improve {subject} when labels exist for only a few regions
aim: to learn representations of multispectral imagery that transfer across sensors and seasons
background: Satellite and drone imagery is abundant, but pixel-level labels for vegetation and land cover are costly.
background: Models that map vegetation often fail in regions, seasons or sensors not seen during training.
background: Managing plant invasions requires accurate maps of where invaders grow, but field surveys are slow and
    costly.
background: Drone and satellite imagery combined with machine learning offers a way to monitor invasions at landscape
    scale.
gap: standard benchmarks rarely test transfer between regions | the value of multispectral pre-training is unclear
gap: model transfer between sites and seasons is rarely tested
design: We propose {method} and evaluate it on {who}.
design: We compare {method} with {k} supervised and self-supervised baselines on {who}, holding out whole regions.
finding: Mean intersection over union improves by {gain} points in regions not seen during training.
finding: With 10% of the labels, the model matches fully supervised training at mapping invasive shrubs and grasses.
finding: Multispectral and temporal inputs matter more than model size for separating plant species.
implication: scalable environmental monitoring | label-efficient remote sensing
design: We train {method} on drone imagery of invasive plants from {k} river catchments and test it in catchments
    unseen in training.
title: {subject} on {who} | {subject}: {method} | Transferable {subject} across regions

== machine_learning + oncology | tumour segmentation in medical images
subject: tumour segmentation with deep networks | self-configuring segmentation of medical images
subject: uncertainty-aware lesion segmentation
who: the BraTS brain tumour segmentation benchmark | CT scans of lung and liver tumours from public challenges
who: multi-institutional MRI of gliomas
method: a self-configuring U-Net | a transformer encoder with a convolutional decoder
method: a U-Net ensemble with Monte Carlo dropout
measure: the Dice similarity coefficient | Hausdorff distance | calibration of voxel-wise uncertainty
aim: to make {subject} robust across scanners and institutions
aim: to estimate when {subject} can be trusted without expert review
background: Manual delineation of tumours on CT and MRI is slow and varies between radiologists.
background: Deep segmentation networks reach expert-level accuracy on curated benchmarks but often fail on data from
    new hospitals.
gap: reliable estimates of segmentation uncertainty are lacking | benchmark gains rarely translate to clinical data
design: We propose {method} and evaluate it on {who}.
design: We compare {method} with {k} segmentation baselines on {who}, holding out entire institutions.
finding: The method reaches a mean Dice coefficient of {f1} on held-out institutions, above that of the strongest
    baseline.
finding: Voxel-wise uncertainty identifies {pct_hi}% of failed segmentations, so that they can be flagged for review.
finding: Gains over a well-tuned U-Net are small once training budgets are matched.
implication: automated tumour delineation for radiotherapy planning | trustworthy medical image segmentation
design: We train {method} on MRI and CT scans of {n_med} patients with cancer from {k} institutions and test it at a
    held-out institution.
title: {subject} on {who} | {subject}: {method} | Robust {subject} across institutions

== machine_learning + cardiology | arrhythmia detection on wearable devices
subject: on-device arrhythmia detection | atrial fibrillation detection on smartwatches
subject: neural networks for wearable ECG
who: smartwatch photoplethysmography recordings | single-lead ECGs from consumer wearables | ambulatory ECG patch
    datasets
method: a compact convolutional network pruned for microcontrollers | knowledge distillation from a large ECG model
method: a recurrent network with quantised weights
measure: sensitivity for atrial fibrillation | false alarms per day | energy use per inference
aim: to detect atrial fibrillation on wearable devices within a small memory and energy budget
aim: to reduce false alarms of {subject} during daily activity
background: Smartwatches can flag atrial fibrillation from pulse or single-lead ECG recordings, but motion artefacts
    cause false alarms.
background: Running detection on the device protects privacy and saves battery, but limits model size.
background: Deep networks classify arrhythmias from the electrocardiogram accurately when large labelled datasets are
    available.
gap: small models lose accuracy on noisy recordings | accuracy is rarely reported per hour of wear
design: We propose {method} and evaluate it on {who}.
design: We compare {method} with {k} larger models on {who}, measuring accuracy and energy on a wearable processor.
finding: The model detects atrial fibrillation with a sensitivity of {acc}% at {small} false alarms per day.
finding: The compact model recovers most of the accuracy of a model {x3} times larger.
finding: Energy per inference falls by a factor of {fold}, extending battery life by several days.
implication: continuous rhythm monitoring with consumer devices | efficient models for medical wearables
title: {subject} on {who} | {subject}: {method} | Low-power {subject}

== machine_learning + oncology | self-supervised foundation models for pathology
subject: self-supervised foundation models for histopathology | vision transformers pre-trained on pathology images
subject: general-purpose slide encoders
who: whole-slide images of colorectal and breast cancer | cancer subtyping and survival benchmarks | tissue tiles from
    {k} cancer types
method: a vision transformer with self-distillation | a vision transformer with masked image modelling on tissue tiles
    | an encoder with contrastive learning across stains and magnifications
measure: linear-probe accuracy on tissue classification | survival prediction | robustness to stain variation
aim: to learn general-purpose representations of tissue from unlabelled slides
aim: to test whether {subject} transfer across cancer types and hospitals
background: Pathology archives hold millions of unlabelled slides, while expert annotations are scarce.
background: Whole-slide images contain billions of pixels, while diagnostic labels are usually available only for whole
    slides.
background: Digitised histopathology slides contain prognostic information that pathologists cannot easily quantify.
gap: it is unclear whether pre-training on natural images transfers to tissue | how much pre-training data is needed is
    unknown
gap: models often overfit to staining differences between hospitals
design: We pre-train {method} on {x4} thousand slides and evaluate the encoder on {who}.
design: We compare {method} with ImageNet pre-training and {k} pathology-specific encoders on {who}.
finding: Linear-probe accuracy on tissue classification improves by {gain} points over ImageNet pre-training.
finding: Survival models built on the encoder stratify patients with colorectal cancer by risk (hazard ratio {hr_up}).
finding: Performance grows with the diversity of the pre-training tissue more than with the number of slides.
implication: general-purpose models for computational pathology | label-efficient cancer diagnostics
title: {subject} on {who} | {subject}: {method} | Scaling {subject} across cancer types
"""

# shared by the fields that report intervals from resampling
BOOTSTRAP = (
    "Confidence intervals were obtained by bootstrap resampling, and all analyses followed a prespecified plan."
)
DEFAULT_AIMS = [
    "We aimed {aim}.",
    "This study set out {aim}.",
    "The aim of this study was {aim}.",
    "Here, we sought {aim}.",
]
CLINICAL = Style(
    aims=DEFAULT_AIMS,
    analyses=[
        "The primary outcome was {primary}, and secondary outcomes included {secondary}.",
        "Estimates were adjusted for age, sex and the main clinical risk factors, with prespecified subgroups.",
        "Missing covariate data were handled by multiple imputation, and sensitivity analyses were prespecified.",
        BOOTSTRAP,
    ],
    limitations=[
        "The findings need confirmation in more diverse populations, in other settings and over longer follow-up."
    ],
    implications=[
        "These findings support {implication} and should be confirmed in other health systems.",
        "The results have direct implications for {implication}, especially for patients missing from earlier trials.",
        "Taken together, these data should inform {implication} and the design of future trials.",
        "Further studies with longer follow-up are needed before these findings are applied to {implication}.",
    ],
)
STYLES: dict[str, Style] = {
    "cardiology": CLINICAL,
    "oncology": Style(
        aims=DEFAULT_AIMS,
        analyses=[
            "The primary end point was {primary}; secondary end points included {secondary} and safety.",
            "Survival was estimated with the Kaplan-Meier method and compared with stratified log-rank tests.",
            "All analyses were prespecified, and patients were followed until death, withdrawal or the data cut-off.",
        ],
        limitations=CLINICAL.limitations,
        implications=CLINICAL.implications,
    ),
    "neuroscience": Style(
        aims=DEFAULT_AIMS,
        analyses=[
            "Effects were tested with linear mixed-effects models that included each subject as a random effect.",
            "Significance was assessed with cluster-based permutation tests that correct for multiple comparisons.",
            "Our main outcome was {primary}, with {secondary} as a secondary measure.",
            BOOTSTRAP,
        ],
        limitations=[
            "Whether these findings generalise to other populations, brain regions and tasks remains to be tested."
        ],
        implications=[
            "These findings have implications for {implication} and make testable predictions for future experiments.",
            "The results are directly relevant to {implication} and to the interpretation of earlier studies.",
            "Together, these findings inform {implication} and raise new questions for future work.",
        ],
    ),
    "ecology": Style(
        aims=[*DEFAULT_AIMS, "We set out {aim}."],
        analyses=[
            "Responses were analysed with generalised linear mixed models with site and year as random effects.",
            "All models accounted for spatial autocorrelation and, where relevant, for imperfect detection.",
            "The main responses were {measure} and {measure2}, recorded with standardised protocols at every site.",
            BOOTSTRAP,
        ],
        limitations=["Longer time series will be needed to separate lasting trends from variation between years."],
        implications=[
            "These results have direct implications for {implication} in comparable systems.",
            "Our findings can guide {implication} and show the value of long-term field data.",
            "We discuss the consequences of these findings for {implication} and outline priorities for research.",
        ],
    ),
    "materials_science": Style(
        aims=["Here we set out {aim}.", "This work aims {aim}.", "Our goal was {aim}."],
        analyses=[
            "Each measurement was repeated on at least three independently prepared samples to check reproducibility.",
            "Samples were examined by electron microscopy before and after testing to link performance to structure.",
            "We characterised {measure} and {measure2} and related both to the microstructure of the samples.",
        ],
        limitations=[
            "Remaining challenges include scale-up, cost and long-term stability under realistic operating conditions."
        ],
        implications=[
            "These results offer a practical route to {implication} and clarify the mechanisms involved.",
            "The findings provide design guidelines for {implication} and for related materials systems.",
            "This strategy is promising for {implication} and could be extended to related materials.",
        ],
    ),
    "machine_learning": Style(
        aims=["In this paper, we set out {aim}.", "Our goal is {aim}.", "This work aims {aim}."],
        analyses=[
            "All results are averaged over {seeds} random seeds, and we report standard deviations with the means.",
            "We report {measure} and {measure2} under a fixed compute budget for every method we compare.",
            "Code, trained models and evaluation scripts are publicly available to support reproducibility.",
        ],
        limitations=[
            "We discuss limitations, including the computational cost of the approach and its hyperparameters."
        ],
        implications=[
            "These results are a step towards {implication} and suggest directions for future work.",
            "Our findings have implications for {implication} and for how such methods are evaluated.",
            "We release code and trained models to support further work on {implication}.",
        ],
    ),
}
GAPS = ["However, {gap}.", "Despite considerable progress, {gap}.", "Yet {gap}."]
REQUIRED = (
    "subject",
    "who",
    "method",
    "measure",
    "aim",
    "background",
    "gap",
    "design",
    "finding",
    "implication",
    "title",
)


def parse_topics(bank: str) -> list[Topic]:
    """The topic bank's topics, in bank order; a malformed topic is an error, not a quiet gap in the corpus."""
    topics: list[Topic] = []
    for block in bank.strip().split("\n\n"):
        head, *lines = block.strip().splitlines()
        label, name = head.removeprefix("== ").split(" | ")
        field, _, partner = label.partition(" + ")
        slots: dict[str, list[str]] = {}
        for line in "\n".join(lines).replace("\n    ", " ").splitlines():
            key, value = line.split(": ", 1)
            slots.setdefault(key, []).extend(part.strip() for part in value.split(" | "))
        missing = [key for key in REQUIRED if key not in slots] + (["2 measures"] if len(slots["measure"]) < 2 else [])
        if field not in FIELDS or (partner and partner not in FIELDS) or missing:
            raise ValueError(f"topic {name!r}: bad field {label!r} or missing {missing}")
        topics.append(Topic(field, partner, name, slots))
    return topics


TOPICS = parse_topics(TOPIC_BANK)


def numbers(rng: random.Random) -> dict[str, str]:
    """One paper's figures: counts, shares, ratios with intervals and measured values, each in a plausible range."""
    lo, slo = rng.uniform(4, 30), rng.uniform(0.4, 5)
    hr, hr_up = rng.uniform(0.55, 0.88), rng.uniform(1.3, 2.8)
    auc, f1 = rng.uniform(0.82, 0.96), rng.uniform(0.72, 0.92)
    med_lo, x3 = rng.uniform(8, 28), rng.randint(12, 95)
    return {
        "n": f"{rng.randint(1000, 24000):,}",
        "n_med": str(rng.randint(120, 960)),
        "n_small": str(rng.randint(8, 48)),
        "k": str(rng.randint(3, 9)),
        "centres": str(rng.randint(4, 38)),
        "years": f"{rng.uniform(1.6, 6.8):.1f}",
        "span": str(rng.randint(3, 20)),
        "weeks": str(rng.choice([12, 16, 24, 26, 48, 52])),
        "days": str(rng.randint(5, 28)),
        "pct_lo": f"{lo:.1f}",
        "pct_hi": f"{lo + rng.uniform(4, 40):.1f}",
        "spct_lo": f"{slo:.1f}",
        "spct_hi": f"{slo + rng.uniform(0.5, 6):.1f}",
        "rel": str(rng.randint(12, 46)),
        "hr": f"{hr:.2f}, 95% CI {hr * rng.uniform(0.75, 0.9):.2f} to {min(hr * rng.uniform(1.08, 1.2), 0.97):.2f}",
        "hr_up": f"{hr_up:.2f}, 95% CI {max(1.04, hr_up * rng.uniform(0.7, 0.85)):.2f} to {hr_up * 1.3:.2f}",
        "auc": f"{auc:.2f}",
        "auc_lo": f"{auc - rng.uniform(0.04, 0.14):.2f}",
        "f1": f"{f1:.2f}",
        "f1_lo": f"{f1 - rng.uniform(0.04, 0.15):.2f}",
        "p": rng.choice(["P < 0.001", "P = 0.002", "P = 0.004", "P = 0.01", "P = 0.02", "P = 0.03"]),
        "p_ns": rng.choice(["P = 0.21", "P = 0.38", "P = 0.47", "P = 0.62", "P = 0.74"]),
        "r": f"{rng.uniform(0.31, 0.72):.2f}",
        "fold": f"{rng.uniform(1.6, 4.9):.1f}",
        "med_lo": f"{med_lo:.1f}",
        "med_hi": f"{med_lo + rng.uniform(2, 12):.1f}",
        "mmhg": f"{rng.uniform(4.1, 15.8):.1f}",
        "x1": f"{rng.uniform(1.1, 9.9):.1f}",
        "x1b": f"{rng.uniform(1.1, 9.9):.1f}",
        "x2": f"{rng.uniform(10.2, 49.8):.1f}",
        "x3": str(x3),
        "x4": str(rng.randint(x3 // 10 + 11, 99) * 10),
        "x4b": str(rng.randint(10, 99) * 10),
        "d": str(rng.randint(1, 9)),
        "gain": f"{rng.uniform(0.8, 6.4):.1f}",
        "acc": f"{rng.uniform(84, 97.9):.1f}",
        "small": f"{rng.uniform(0.08, 0.45):.2f}",
        "low_k": f"{rng.uniform(0.2, 0.65):.2f}",
        "eff": f"{rng.uniform(19.1, 25.9):.1f}",
        "ret": f"{rng.uniform(80.1, 97.9):.1f}",
        "hours": f"{rng.randint(10, 30) * 100:,}",
        "cycles": f"{rng.randint(5, 50) * 100:,}",
        "temp": str(rng.randint(12, 19) * 50),
        "temp_low": str(rng.randint(9, 17) * 5),
        "zt": f"{rng.uniform(1.1, 2.6):.1f}",
        "elong": str(rng.randint(15, 45)),
        "seeds": str(rng.choice([3, 5, 10])),
    }


def capitalised(text: str) -> str:
    """First letter up, unless the first word is already mixed-case (ctDNA, eDNA, pH-responsive)."""
    first = text.split(" ", 1)[0]
    return text if any(c.isupper() for c in first[1:]) else text[0].upper() + text[1:]


def draft(rng: random.Random, topic: Topic) -> tuple[str, list[str]]:
    """One paper of `topic`: a title and its abstract's sentences, every slot drawn once so all sentences agree."""
    style, figures = STYLES[topic.field], numbers(rng)
    slots = {key: rng.choice(values) for key, values in topic.slots.items()}
    measures = topic.slots["measure"]
    slots["measure"], slots["measure2"] = rng.sample(measures, 2)
    slots["primary"], slots["secondary"] = measures[0], rng.choice(measures[1:])  # a topic lists its primary first
    named = ("subject", "who", "method", "measure", "measure2", "primary", "secondary")
    values = figures | {key: slots[key].format_map(figures) for key in named}
    values |= {key: slots[key].format_map(values) for key in ("aim", "gap", "implication")}  # these name the others

    def fill(template: str) -> str:
        return capitalised(template.format_map(values))

    opening = [fill(slots["background"])]
    if rng.random() < 0.3:  # the gap as its own sentence, or joined to a background that states no contrast yet
        opening.append(fill(rng.choice(GAPS)))
    elif rng.random() < 0.4 and not re.search(r", but |\byet\b|however", opening[0]):
        opening = [f"{opening[0][:-1]}; however, {values['gap']}."]
    design = fill(slots["design"])
    body = [design]
    if values["method"] in values["aim"] and values["method"] in design:
        pass  # an aim that would name the method twice is left out, as many abstracts leave it
    elif rng.random() < 0.25 and design.startswith("We "):  # the aim folded into the design: "To test ..., we ..."
        body = [f"{capitalised(values['aim'])}, we {design[3:]}"]
    elif rng.random() < 0.85:
        body = [fill(rng.choice(style.aims)), design]
    if rng.random() < 0.45:
        body.append(fill(rng.choice(topic.slots.get("analysis", style.analyses))))
    findings = [fill(f) for f in rng.sample(topic.slots["finding"], 2 if rng.random() < 0.6 else 1)]
    closing = [fill(rng.choice(topic.slots.get("conclusion", style.implications)))]
    if rng.random() < 0.2:
        closing.insert(0, rng.choice(topic.slots.get("limitation", style.limitations)))
    sentences = [*opening, *body, *findings, *closing]
    if len(sentences) > 7:  # the optional sentences go first: the limitation, then a gap of its own
        sentences = [*opening, *body, *findings, closing[-1]]
    if len(sentences) > 7:
        sentences = [opening[0], *body, *findings, closing[-1]]
    return fill(rng.choice(topic.slots["title"])), sentences


Grams = set[tuple[str, ...]]


def trigrams(text: str) -> Grams:
    words = re.findall(r"[a-z0-9]+(?:[-'][a-z0-9]+)*", text.lower())
    return set(zip(words, words[1:], words[2:]))


def shared(a: Grams, b: Grams) -> float:
    """The share of the shorter text's word 3-grams that the other text also has."""
    return len(a & b) / max(1, min(len(a), len(b)))


MAX_SHARED = 0.5  # no two abstracts of a topic share more of their 3-grams: near-duplicates would teach nothing


def acceptable(title: str, sentences: list[str]) -> bool:
    """The corpus's shape: 4 to 7 sentences of 60-250 characters, 600-1500 in all, a title of 5 or more words.

    A sentence starts with a capital and does not end in a capital-letter unit ("4.4 V."): the trainer's sentence
    splitter reads both as no boundary."""
    text = " ".join(sentences)
    return (
        4 <= len(sentences) <= 7
        and all(60 <= len(s) <= 250 and s[0].isupper() and not re.search(r" [A-Z]\.$", s) for s in sentences)
        and 600 <= len(text) <= 1500
        and len(title.split()) >= 5
    )


def paper(rng: random.Random, topic: Topic, titles: set[str], siblings: list[Grams]) -> tuple[str, str]:
    """A title and abstract of `topic` with the corpus's shape, redrawn (deterministically) until its title is new and
    it shares at most `MAX_SHARED` of its 3-grams with each earlier paper of the topic (`siblings`). After 300 draws,
    the best one: a new title first, then the least overlap (only corpora far larger than the shipped one get there).
    """
    best: tuple[bool, float, str, str] | None = None
    for _ in range(300):
        title, sentences = draft(rng, topic)
        if not acceptable(title, sentences):
            continue
        text = " ".join(sentences)
        grams = trigrams(text)
        candidate = (
            title.lower() in titles,
            max((shared(grams, other) for other in siblings), default=0.0),
            title,
            text,
        )
        best = candidate if best is None or candidate[:2] < best[:2] else best
        if best[:2] <= (False, MAX_SHARED):
            break
    if best is None:
        raise RuntimeError(f"topic {topic.name!r}: no paper of the corpus's shape in 300 draws; loosen its templates")
    *_, title, text = best
    titles.add(title.lower())
    siblings.append(trigrams(text))
    return title, text


COUNT, SEED = 360, 13  # the shipped corpus


def papers(count: int, seed: int) -> list[tuple[dict[str, str], Topic]]:
    """Each paper's corpus row and the topic it was written from, in file order.

    Fields take turns, and each field's topics take turns in a seeded order, so every topic gets a near-equal
    share. The topic (its name, its partner field) is not written to the corpus, as a real corpus does not know
    it; `examples/trace_demo_labels.py` splits label agreement by it.
    """
    rng = random.Random(seed)
    rotation = {field: [t for t in TOPICS if t.field == field] for field in FIELDS}
    rotation = {field: rng.sample(topics, k=len(topics)) for field, topics in rotation.items()}
    titles: set[str] = set()
    siblings: dict[str, list[Grams]] = {topic.name: [] for topic in TOPICS}
    out = []
    for i in range(count):
        field = FIELDS[i % len(FIELDS)]
        topic = rotation[field][(i // len(FIELDS)) % len(rotation[field])]
        title, text = paper(rng, topic, titles, siblings[topic.name])
        out.append(({"id": f"synth-{i + 1:04d}", "title": title, "abstract": text, "topic": field}, topic))
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
