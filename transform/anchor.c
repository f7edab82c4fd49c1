/* placeholder until pass 1 sources land; removed then */
int tbbt_transform_anchor;
