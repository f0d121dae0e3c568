// The pieces the suite's samples are made of, shared by its groups: the factor ids that stand in
// many classes' tables (the wheat totals), a sample's values all 0 for some factors, and its
// judgments all one grade.

export const TFM = 'total_foreign_material';
export const THB = 'total_heated_binburnt_severely_mildewed_rotted_mouldy';
export const TWOC = 'total_wheats_of_other_classes_or_varieties_and_contrasting_classes';
export const TSB = 'total_smudge_and_blackpoint';
/** Values of 0 for each factor named. */
export const zero = (...ids: string[]) => Object.fromEntries(ids.map((id) => [id, 0]));
/** The wheat judgments (soundness and variety) at one grade. */
export const judged = (grade: string) => ({ degree_of_soundness: grade, variety: grade });
export const mildew = { degree_of_soundness: 'mildew' };
