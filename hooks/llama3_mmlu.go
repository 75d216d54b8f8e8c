package hooks

// llama3/instruct/mmlu_{de,es,fr,hi,it,pt,th} (one utils.py per language)
// and llama3/instruct/mmlu_pro: the Llama 3 evaluation's MMLU translations
// keep the subjects of one config apart by column, and each
// process_docs_<subject> keeps one subject's rows.

import (
	"regexp"
	"strings"
)

// mmluSubjects are MMLU's 57 subjects: each language file defines one
// process_docs_<subject> for every one of them.
var mmluSubjects = strings.Fields(`abstract_algebra anatomy astronomy business_ethics clinical_knowledge college_biology
	college_chemistry college_computer_science college_mathematics college_medicine college_physics computer_security
	conceptual_physics econometrics electrical_engineering elementary_mathematics formal_logic global_facts
	high_school_biology high_school_chemistry high_school_computer_science high_school_european_history
	high_school_geography high_school_government_and_politics high_school_macroeconomics high_school_mathematics
	high_school_microeconomics high_school_physics high_school_psychology high_school_statistics high_school_us_history
	high_school_world_history human_aging human_sexuality international_law jurisprudence logical_fallacies
	machine_learning management marketing medical_genetics miscellaneous moral_disputes moral_scenarios nutrition
	philosophy prehistory professional_accounting professional_law professional_medicine professional_psychology
	public_relations security_studies sociology us_foreign_policy virology world_religions`)

var llama3MMLUSources = map[string]string{
	"de": "dda88dd84883bc5ca021dbc243d852c0676d861c334b29bf727ceae28042f8ec",
	"es": "158bc3053efb54cf56fa8e65004a547d4e33df5352ed214822d6a5830a76e71a",
	"fr": "22cd22866cf35c164df9b64dce59f448e6c8a44899f12bbdd2de9297203171f4",
	"hi": "58142960109ac3c7dfec0167bffe1a4cda5b773bc01b5530d61f959f740f41a5",
	"it": "9e11710d3d95fe8debee8835db50993a0dbb8ebad966aac54a473eb9514a775c",
	"pt": "50e74c808630015bbdc7bda1e2de4bcc7a52a863f58c14b7b01a621c6939aed8",
	"th": "eae32645e56c57e8a8b963e95b14d1a4b66277b5514a04f33e0a3bbb39267856",
}

var llama3MMLUProSources = []Source{{"llama3/instruct/mmlu_pro", "888465171665585c62815c028558b7c88984ec68fc0ec70a1eb55c4a93b632b9"}}

func init() {
	for lang, sha := range llama3MMLUSources {
		src := []Source{{"llama3/instruct/mmlu_" + lang, sha}}
		for _, s := range mmluSubjects {
			// process_docs(dataset, subtask): keep subtask_name == f"mmlu_{lang}_chat.{subtask}".
			registerPort(Port{Function: "process_docs_" + s, Sources: src, Docs: filterColumn("subtask_name", "mmlu_"+lang+"_chat."+s)})
		}
	}
	for fn, category := range mmluProSubjects {
		registerPort(Port{Function: "process_" + fn, Sources: llama3MMLUProSources, Docs: filterColumn("category", category)})
	}
	registerPort(Port{Function: "fewshot_to_text", Sources: llama3MMLUProSources, Text: llama3MMLUProShot})
}

var bestAnswer = regexp.MustCompile(`The answer is \(([A-Z])\)\.`)

// llama3MMLUProShot is llama3's mmlu_pro fewshot_to_text: cot_content
// without its "A: Let's think step by step." opening, stripped, with
// "The answer is (X)." becoming "The best answer is X.".
func llama3MMLUProShot(doc map[string]any) (string, error) {
	c, err := strColumn(doc, "cot_content", "llama3 mmlu_pro fewshot_to_text")
	if err != nil {
		return "", err
	}
	c = PyStrip(strings.TrimPrefix(c, "A: Let's think step by step."))
	return bestAnswer.ReplaceAllString(c, "The best answer is $1."), nil
}
