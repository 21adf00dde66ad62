/* Schema messages written by Arrow C++ (0.14.1 to 21.0.0): the Arrow
 * integration gold files of testdata/arrow-ipc/integration. Each
 * stream starts with its Schema message; the expected text below was
 * rendered from the schema in the case's .json.gz (the integration JSON, the
 * files' independent description) by a script mapping each JSON type to its
 * C data interface format (int bitWidth/isSigned -> c C s S i I l L,
 * floatingpoint HALF/SINGLE/DOUBLE -> e f g, timestamp unit+timezone ->
 * ts{s,m,u,n}:zone, dictionary indexType -> the field format with the value
 * type in [] (nullable, as Arrow C++ exports dictionary value types), map
 * keysSorted -> '^', metadata sorted by key, ...), in the notation of
 * ipc_test_render (ipc_schema_test.c). Map children are expected as
 * entries/key/value: Arrow C++ writes those names whatever the JSON says
 * (generated_map_non_canonical; strings(1) on its bytes shows them). */
#include <stdlib.h>

#include "basalt/arrow.h"
#include "test.h"

void ipc_test_render(const struct ArrowSchema *s, struct basalt_buffer *out, bool with_name);

static const struct {
    const char *path;
    const char *expected;
} gold[] = {
    {"0.14.1/generated_datetime.stream",
     "+s<f0:tdD?,f1:tdm?,f2:tts?,f3:ttm?,f4:ttu?,f5:ttn?,f6:tss:?,f7:tsm:?,f8:tsu:?,f9:tsn:?,f10:tsm:?,f11:tss:UTC?,f12:tsm:US/Eastern?,f13:tsu:Europe/Paris?,f14:tsn:US/Pacific?>"},
    {"0.14.1/generated_decimal.stream",
     "+s<f0:d:3,2?>"},
    {"0.14.1/generated_dictionary.stream",
     "+s<dict0:c?[u?],dict1:i?[u?],dict2:s?[l?]>"},
    {"0.14.1/generated_interval.stream",
     "+s<f1:tDs?,f2:tDm?,f3:tDu?,f4:tDn?,f5:tiM?,f6:tiD?>"},
    {"0.14.1/generated_map.stream",
     "+s<map_nullable:+m?<entries:+s<key:u,value:i?>>>"},
    {"0.14.1/generated_nested.stream",
     "+s<list_nullable:+l?<item:i?>,fixedsizelist_nullable:+w:4?<item:i?>,struct_nullable:+s?<f1:i?,f2:u?>>"},
    {"0.14.1/generated_primitive.stream",
     "+s<bool_nullable:b?,bool_nonnullable:b,int8_nullable:c?,int8_nonnullable:c,int16_nullable:s?,int16_nonnullable:s,int32_nullable:i?,int32_nonnullable:i,int64_nullable:l?,int64_nonnullable:l,uint8_nullable:C?,uint8_nonnullable:C,uint16_nullable:S?,uint16_nonnullable:S,uint32_nullable:I?,uint32_nonnullable:I,uint64_nullable:L?,uint64_nonnullable:L,float32_nullable:f?,float32_nonnullable:f,float64_nullable:g?,float64_nonnullable:g,binary_nullable:z?,binary_nonnullable:z,utf8_nullable:u?,utf8_nonnullable:u,fixedsizebinary_19_nullable:w:19?,fixedsizebinary_19_nonnullable:w:19,fixedsizebinary_120_nullable:w:120?,fixedsizebinary_120_nonnullable:w:120>"},
    {"0.14.1/generated_primitive_no_batches.stream",
     "+s<bool_nullable:b?,bool_nonnullable:b,int8_nullable:c?,int8_nonnullable:c,int16_nullable:s?,int16_nonnullable:s,int32_nullable:i?,int32_nonnullable:i,int64_nullable:l?,int64_nonnullable:l,uint8_nullable:C?,uint8_nonnullable:C,uint16_nullable:S?,uint16_nonnullable:S,uint32_nullable:I?,uint32_nonnullable:I,uint64_nullable:L?,uint64_nonnullable:L,float32_nullable:f?,float32_nonnullable:f,float64_nullable:g?,float64_nonnullable:g,binary_nullable:z?,binary_nonnullable:z,utf8_nullable:u?,utf8_nonnullable:u,fixedsizebinary_19_nullable:w:19?,fixedsizebinary_19_nonnullable:w:19,fixedsizebinary_120_nullable:w:120?,fixedsizebinary_120_nonnullable:w:120>"},
    {"0.14.1/generated_primitive_zerolength.stream",
     "+s<bool_nullable:b?,bool_nonnullable:b,int8_nullable:c?,int8_nonnullable:c,int16_nullable:s?,int16_nonnullable:s,int32_nullable:i?,int32_nonnullable:i,int64_nullable:l?,int64_nonnullable:l,uint8_nullable:C?,uint8_nonnullable:C,uint16_nullable:S?,uint16_nonnullable:S,uint32_nullable:I?,uint32_nonnullable:I,uint64_nullable:L?,uint64_nonnullable:L,float32_nullable:f?,float32_nonnullable:f,float64_nullable:g?,float64_nonnullable:g,binary_nullable:z?,binary_nonnullable:z,utf8_nullable:u?,utf8_nonnullable:u,fixedsizebinary_19_nullable:w:19?,fixedsizebinary_19_nonnullable:w:19,fixedsizebinary_120_nullable:w:120?,fixedsizebinary_120_nonnullable:w:120>"},
    {"0.17.1/generated_union.stream",
     "+s<sparse:+us:5,7<f1:i?,f2:u?>,dense:+ud:10,20<f1:s?,f2:z?>,sparse:+us:5,7<f1:f,f2:b?>,dense:+ud:42,43,44<f1:C,f2:S?,f3:n?>>"},
    {"1.0.0-bigendian/generated_datetime.stream",
     "+s<f0:tdD?,f1:tdm?,f2:tts?,f3:ttm?,f4:ttu?,f5:ttn?,f6:tss:?,f7:tsm:?,f8:tsu:?,f9:tsn:?,f10:tsm:?,f11:tss:UTC?,f12:tsm:US/Eastern?,f13:tsu:Europe/Paris?,f14:tsn:US/Pacific?>"},
    {"1.0.0-bigendian/generated_dictionary.stream",
     "+s<dict0:c?[u?],dict1:i?[u?],dict2:s?[l?]>"},
    {"1.0.0-bigendian/generated_nested.stream",
     "+s<list_nullable:+l?<item:i?>,fixedsizelist_nullable:+w:4?<item:i?>,struct_nullable:+s?<f1:i?,f2:u?>>"},
    {"1.0.0-bigendian/generated_null_trivial.stream",
     "+s<f0:n?>"},
    {"1.0.0-bigendian/generated_primitive.stream",
     "+s<bool_nullable:b?,bool_nonnullable:b,int8_nullable:c?,int8_nonnullable:c,int16_nullable:s?,int16_nonnullable:s,int32_nullable:i?,int32_nonnullable:i,int64_nullable:l?,int64_nonnullable:l,uint8_nullable:C?,uint8_nonnullable:C,uint16_nullable:S?,uint16_nonnullable:S,uint32_nullable:I?,uint32_nonnullable:I,uint64_nullable:L?,uint64_nonnullable:L,float32_nullable:f?,float32_nonnullable:f,float64_nullable:g?,float64_nonnullable:g,binary_nullable:z?,binary_nonnullable:z,utf8_nullable:u?,utf8_nonnullable:u,fixedsizebinary_19_nullable:w:19?,fixedsizebinary_19_nonnullable:w:19,fixedsizebinary_120_nullable:w:120?,fixedsizebinary_120_nonnullable:w:120>"},
    {"1.0.0-bigendian/generated_union.stream",
     "+s<sparse:+us:5,7?<f1:i?,f2:u?>,dense:+ud:10,20?<f1:s?,f2:z?>,sparse:+us:5,7<f1:f,f2:b?>,dense:+ud:42,43,44<f1:C,f2:S?,f3:n?>>"},
    {"1.0.0-littleendian/generated_custom_metadata.stream",
     "+s<sort_of_pandas:c?{pandas={}},lots_of_meta:c?{..={};a={};b={};c={};d={};w={};x={};y={};z={}},unregistered_extension:c?{ARROW:extension:metadata=;ARROW:extension:name=!nonexistent;ARROW:integration:allow_unregistered_extension=true},list_with_odd_values:+l?<item:i?{odd_values={}}>>{schema_custom_0={};schema_custom_1={}}"},
    {"1.0.0-littleendian/generated_datetime.stream",
     "+s<f0:tdD?,f1:tdm?,f2:tts?,f3:ttm?,f4:ttu?,f5:ttn?,f6:tss:?,f7:tsm:?,f8:tsu:?,f9:tsn:?,f10:tsm:?,f11:tss:UTC?,f12:tsm:US/Eastern?,f13:tsu:Europe/Paris?,f14:tsn:US/Pacific?>"},
    {"1.0.0-littleendian/generated_decimal.stream",
     "+s<f0:d:3,2?,f1:d:4,2?,f2:d:5,2?,f3:d:6,2?,f4:d:7,2?,f5:d:8,2?,f6:d:9,2?,f7:d:10,2?,f8:d:11,2?,f9:d:12,2?,f10:d:13,2?,f11:d:14,2?,f12:d:15,2?,f13:d:16,2?,f14:d:17,2?,f15:d:18,2?,f16:d:19,2?,f17:d:20,2?,f18:d:21,2?,f19:d:22,2?,f20:d:23,2?,f21:d:24,2?,f22:d:25,2?,f23:d:26,2?,f24:d:27,2?,f25:d:28,2?,f26:d:29,2?,f27:d:30,2?,f28:d:31,2?,f29:d:32,2?,f30:d:33,2?,f31:d:34,2?,f32:d:35,2?,f33:d:36,2?,f34:d:37,2?,f35:d:38,2?>"},
    {"1.0.0-littleendian/generated_decimal256.stream",
     "+s<f0:d:37,5,256?,f1:d:38,5,256?,f2:d:39,5,256?,f3:d:40,5,256?,f4:d:41,5,256?,f5:d:42,5,256?,f6:d:43,5,256?,f7:d:44,5,256?,f8:d:45,5,256?,f9:d:46,5,256?,f10:d:47,5,256?,f11:d:48,5,256?,f12:d:49,5,256?,f13:d:50,5,256?,f14:d:51,5,256?,f15:d:52,5,256?,f16:d:53,5,256?,f17:d:54,5,256?,f18:d:55,5,256?,f19:d:56,5,256?,f20:d:57,5,256?,f21:d:58,5,256?,f22:d:59,5,256?,f23:d:60,5,256?,f24:d:61,5,256?,f25:d:62,5,256?,f26:d:63,5,256?,f27:d:64,5,256?,f28:d:65,5,256?,f29:d:66,5,256?,f30:d:67,5,256?,f31:d:68,5,256?,f32:d:69,5,256?>"},
    {"1.0.0-littleendian/generated_dictionary.stream",
     "+s<dict0:c?[u?],dict1:i?[u?],dict2:s?[l?]>"},
    {"1.0.0-littleendian/generated_dictionary_unsigned.stream",
     "+s<f0:C?[u?],f1:S?[u?],f2:I?[u?]>"},
    {"1.0.0-littleendian/generated_duplicate_fieldnames.stream",
     "+s<ints:c?,ints:i?,struct:+s?<:i?,:u?>>"},
    {"1.0.0-littleendian/generated_extension.stream",
     "+s<uuids:w:16?{ARROW:extension:metadata=uuid-serialized;ARROW:extension:name=uuid},dict_exts:c?[u?]{ARROW:extension:metadata=dict-extension-serialized;ARROW:extension:name=dict-extension}>"},
    {"1.0.0-littleendian/generated_interval.stream",
     "+s<f1:tDs?,f2:tDm?,f3:tDu?,f4:tDn?,f5:tiM?,f6:tiD?>"},
    {"1.0.0-littleendian/generated_map.stream",
     "+s<map_nullable:+m?<entries:+s<key:u,value:i?>>>"},
    {"1.0.0-littleendian/generated_map_non_canonical.stream",
     "+s<map_other_names:+m?<entries:+s<key:u,value:i?>>>"},
    {"1.0.0-littleendian/generated_nested.stream",
     "+s<list_nullable:+l?<item:i?>,fixedsizelist_nullable:+w:4?<item:i?>,struct_nullable:+s?<f1:i?,f2:u?>>"},
    {"1.0.0-littleendian/generated_nested_dictionary.stream",
     "+s<list_dict:c?[+l?<str_dict:c?[u?]>],struct_dict:c?[+s?<str_dict_a:c?[u?],str_dict_b:c?[u?]>]>"},
    {"1.0.0-littleendian/generated_nested_large_offsets.stream",
     "+s<large_list_nullable:+L?<item:i?>,large_list_nonnullable:+L<item:i?>,large_list_nested:+L?<inner_list:+l?<item:s?>>>"},
    {"1.0.0-littleendian/generated_null.stream",
     "+s<f0:n?,f1:i?,f2:n?,f3:g?,f4:n?>"},
    {"1.0.0-littleendian/generated_null_trivial.stream",
     "+s<f0:n?>"},
    {"1.0.0-littleendian/generated_primitive.stream",
     "+s<bool_nullable:b?,bool_nonnullable:b,int8_nullable:c?,int8_nonnullable:c,int16_nullable:s?,int16_nonnullable:s,int32_nullable:i?,int32_nonnullable:i,int64_nullable:l?,int64_nonnullable:l,uint8_nullable:C?,uint8_nonnullable:C,uint16_nullable:S?,uint16_nonnullable:S,uint32_nullable:I?,uint32_nonnullable:I,uint64_nullable:L?,uint64_nonnullable:L,float32_nullable:f?,float32_nonnullable:f,float64_nullable:g?,float64_nonnullable:g,binary_nullable:z?,binary_nonnullable:z,utf8_nullable:u?,utf8_nonnullable:u,fixedsizebinary_19_nullable:w:19?,fixedsizebinary_19_nonnullable:w:19,fixedsizebinary_120_nullable:w:120?,fixedsizebinary_120_nonnullable:w:120>"},
    {"1.0.0-littleendian/generated_primitive_large_offsets.stream",
     "+s<largebinary_nullable:Z?,largebinary_nonnullable:Z,largeutf8_nullable:U?,largeutf8_nonnullable:U>"},
    {"1.0.0-littleendian/generated_primitive_no_batches.stream",
     "+s<bool_nullable:b?,bool_nonnullable:b,int8_nullable:c?,int8_nonnullable:c,int16_nullable:s?,int16_nonnullable:s,int32_nullable:i?,int32_nonnullable:i,int64_nullable:l?,int64_nonnullable:l,uint8_nullable:C?,uint8_nonnullable:C,uint16_nullable:S?,uint16_nonnullable:S,uint32_nullable:I?,uint32_nonnullable:I,uint64_nullable:L?,uint64_nonnullable:L,float32_nullable:f?,float32_nonnullable:f,float64_nullable:g?,float64_nonnullable:g,binary_nullable:z?,binary_nonnullable:z,utf8_nullable:u?,utf8_nonnullable:u,fixedsizebinary_19_nullable:w:19?,fixedsizebinary_19_nonnullable:w:19,fixedsizebinary_120_nullable:w:120?,fixedsizebinary_120_nonnullable:w:120>"},
    {"1.0.0-littleendian/generated_primitive_zerolength.stream",
     "+s<bool_nullable:b?,bool_nonnullable:b,int8_nullable:c?,int8_nonnullable:c,int16_nullable:s?,int16_nonnullable:s,int32_nullable:i?,int32_nonnullable:i,int64_nullable:l?,int64_nonnullable:l,uint8_nullable:C?,uint8_nonnullable:C,uint16_nullable:S?,uint16_nonnullable:S,uint32_nullable:I?,uint32_nonnullable:I,uint64_nullable:L?,uint64_nonnullable:L,float32_nullable:f?,float32_nonnullable:f,float64_nullable:g?,float64_nonnullable:g,binary_nullable:z?,binary_nonnullable:z,utf8_nullable:u?,utf8_nonnullable:u,fixedsizebinary_19_nullable:w:19?,fixedsizebinary_19_nonnullable:w:19,fixedsizebinary_120_nullable:w:120?,fixedsizebinary_120_nonnullable:w:120>"},
    {"1.0.0-littleendian/generated_recursive_nested.stream",
     "+s<lists_list:+l?<inner_list:+l?<item:s?>>,structs_list:+l?<inner_struct:+s?<f1:i?,f2:u?>>>"},
    {"1.0.0-littleendian/generated_union.stream",
     "+s<sparse:+us:5,7?<f1:i?,f2:u?>,dense:+ud:10,20?<f1:s?,f2:z?>,sparse:+us:5,7<f1:f,f2:b?>,dense:+ud:42,43,44<f1:C,f2:S?,f3:n?>>"},
    {"2.0.0-compression/generated_lz4.stream",
     "+s<ints:l?,strs:u?>"},
    {"2.0.0-compression/generated_uncompressible_lz4.stream",
     "+s<ints:i?,strings:u?>"},
    {"2.0.0-compression/generated_uncompressible_zstd.stream",
     "+s<ints:i?,strings:u?>"},
    {"2.0.0-compression/generated_zstd.stream",
     "+s<ints:l?,strs:u?>"},
    {"4.0.0-shareddict/generated_shared_dict.stream",
     "+s<col1:s?[u?],col2:s?[u?]>"},
    {"cpp-21.0.0/generated_binary.stream",
     "+s<binary_nullable:z?,binary_nonnullable:z,utf8_nullable:u?,utf8_nonnullable:u,fixedsizebinary_19_nullable:w:19?,fixedsizebinary_19_nonnullable:w:19,fixedsizebinary_120_nullable:w:120?,fixedsizebinary_120_nonnullable:w:120>"},
    {"cpp-21.0.0/generated_binary_no_batches.stream",
     "+s<binary_nullable:z?,binary_nonnullable:z,utf8_nullable:u?,utf8_nonnullable:u,fixedsizebinary_19_nullable:w:19?,fixedsizebinary_19_nonnullable:w:19,fixedsizebinary_120_nullable:w:120?,fixedsizebinary_120_nonnullable:w:120>"},
    {"cpp-21.0.0/generated_binary_view.stream",
     "+s<bv:vz?,sv:vu?>"},
    {"cpp-21.0.0/generated_binary_zerolength.stream",
     "+s<binary_nullable:z?,binary_nonnullable:z,utf8_nullable:u?,utf8_nonnullable:u,fixedsizebinary_19_nullable:w:19?,fixedsizebinary_19_nonnullable:w:19,fixedsizebinary_120_nullable:w:120?,fixedsizebinary_120_nonnullable:w:120>"},
    {"cpp-21.0.0/generated_custom_metadata.stream",
     "+s<sort_of_pandas:c?{pandas={}},lots_of_meta:c?{..={};a={};b={};c={};d={};w={};x={};y={};z={}},unregistered_extension:c?{ARROW:extension:metadata=;ARROW:extension:name=!nonexistent;ARROW:integration:allow_unregistered_extension=true},list_with_odd_values:+l?<item:i?{odd_values={}}>>{schema_custom_0={};schema_custom_1={}}"},
    {"cpp-21.0.0/generated_datetime.stream",
     "+s<f0:tdD?,f1:tdm?,f2:tts?,f3:ttm?,f4:ttu?,f5:ttn?,f6:tss:?,f7:tsm:?,f8:tsu:?,f9:tsn:?,f10:tsm:?,f11:tss:UTC?,f12:tsm:US/Eastern?,f13:tsu:Europe/Paris?,f14:tsn:US/Pacific?>"},
    {"cpp-21.0.0/generated_decimal.stream",
     "+s<f0:d:3,2?,f1:d:4,2?,f2:d:5,2?,f3:d:6,2?,f4:d:7,2?,f5:d:8,2?,f6:d:9,2?,f7:d:10,2?,f8:d:11,2?,f9:d:12,2?,f10:d:13,2?,f11:d:14,2?,f12:d:15,2?,f13:d:16,2?,f14:d:17,2?,f15:d:18,2?,f16:d:19,2?,f17:d:20,2?,f18:d:21,2?,f19:d:22,2?,f20:d:23,2?,f21:d:24,2?,f22:d:25,2?,f23:d:26,2?,f24:d:27,2?,f25:d:28,2?,f26:d:29,2?,f27:d:30,2?,f28:d:31,2?,f29:d:32,2?,f30:d:33,2?,f31:d:34,2?,f32:d:35,2?,f33:d:36,2?,f34:d:37,2?,f35:d:38,2?>"},
    {"cpp-21.0.0/generated_decimal256.stream",
     "+s<f0:d:37,5,256?,f1:d:38,5,256?,f2:d:39,5,256?,f3:d:40,5,256?,f4:d:41,5,256?,f5:d:42,5,256?,f6:d:43,5,256?,f7:d:44,5,256?,f8:d:45,5,256?,f9:d:46,5,256?,f10:d:47,5,256?,f11:d:48,5,256?,f12:d:49,5,256?,f13:d:50,5,256?,f14:d:51,5,256?,f15:d:52,5,256?,f16:d:53,5,256?,f17:d:54,5,256?,f18:d:55,5,256?,f19:d:56,5,256?,f20:d:57,5,256?,f21:d:58,5,256?,f22:d:59,5,256?,f23:d:60,5,256?,f24:d:61,5,256?,f25:d:62,5,256?,f26:d:63,5,256?,f27:d:64,5,256?,f28:d:65,5,256?,f29:d:66,5,256?,f30:d:67,5,256?,f31:d:68,5,256?,f32:d:69,5,256?>"},
    {"cpp-21.0.0/generated_decimal32.stream",
     "+s<f0:d:3,2,32?,f1:d:4,2,32?,f2:d:5,2,32?,f3:d:6,2,32?,f4:d:7,2,32?,f5:d:8,2,32?,f6:d:9,2,32?>"},
    {"cpp-21.0.0/generated_decimal64.stream",
     "+s<f0:d:3,2,64?,f1:d:4,2,64?,f2:d:5,2,64?,f3:d:6,2,64?,f4:d:7,2,64?,f5:d:8,2,64?,f6:d:9,2,64?,f7:d:10,2,64?,f8:d:11,2,64?,f9:d:12,2,64?,f10:d:13,2,64?,f11:d:14,2,64?,f12:d:15,2,64?,f13:d:16,2,64?,f14:d:17,2,64?,f15:d:18,2,64?>"},
    {"cpp-21.0.0/generated_dictionary.stream",
     "+s<dict0:c?[u?],dict1:i?[u?],dict2:s?[l?]>"},
    {"cpp-21.0.0/generated_dictionary_unsigned.stream",
     "+s<f0:C?[u?],f1:S?[u?],f2:I?[u?]>"},
    {"cpp-21.0.0/generated_duplicate_fieldnames.stream",
     "+s<ints:c?,ints:i?,struct:+s?<:i?,:u?>>"},
    {"cpp-21.0.0/generated_duration.stream",
     "+s<f1:tDs?,f2:tDm?,f3:tDu?,f4:tDn?>"},
    {"cpp-21.0.0/generated_extension.stream",
     "+s<uuids:w:16?{ARROW:extension:metadata=;ARROW:extension:name=arrow.uuid},dict_exts:c?[u?]{ARROW:extension:metadata=dict-extension-serialized;ARROW:extension:name=dict-extension}>"},
    {"cpp-21.0.0/generated_interval.stream",
     "+s<f5:tiM?,f6:tiD?>"},
    {"cpp-21.0.0/generated_interval_mdn.stream",
     "+s<f1:tin?>"},
    {"cpp-21.0.0/generated_large_binary.stream",
     "+s<largebinary_nullable:Z?,largebinary_nonnullable:Z,largeutf8_nullable:U?,largeutf8_nonnullable:U>"},
    {"cpp-21.0.0/generated_list_view.stream",
     "+s<lv:+vl?<item:f?>,llv:+vL?<item:f?>>"},
    {"cpp-21.0.0/generated_map.stream",
     "+s<map_nullable:+m?<entries:+s<key:u,value:i?>>>"},
    {"cpp-21.0.0/generated_map_non_canonical.stream",
     "+s<map_other_names:+m?<entries:+s<key:u,value:i?>>>"},
    {"cpp-21.0.0/generated_nested.stream",
     "+s<list_nullable:+l?<item:i?>,fixedsizelist_nullable:+w:4?<item:i?>,struct_nullable:+s?<f1:i?,f2:u?>>"},
    {"cpp-21.0.0/generated_nested_dictionary.stream",
     "+s<list_dict:c?[+l?<str_dict:c?[u?]>],struct_dict:c?[+s?<str_dict_a:c?[u?],str_dict_b:c?[u?]>]>"},
    {"cpp-21.0.0/generated_nested_large_offsets.stream",
     "+s<large_list_nullable:+L?<item:i?>,large_list_nonnullable:+L<item:i?>,large_list_nested:+L?<inner_list:+l?<item:s?>>>"},
    {"cpp-21.0.0/generated_null.stream",
     "+s<f0:n?,f1:i?,f2:n?,f3:g?,f4:n?>"},
    {"cpp-21.0.0/generated_null_trivial.stream",
     "+s<f0:n?>"},
    {"cpp-21.0.0/generated_primitive.stream",
     "+s<bool_nullable:b?,bool_nonnullable:b,int8_nullable:c?,int8_nonnullable:c,int16_nullable:s?,int16_nonnullable:s,int32_nullable:i?,int32_nonnullable:i,int64_nullable:l?,int64_nonnullable:l,uint8_nullable:C?,uint8_nonnullable:C,uint16_nullable:S?,uint16_nonnullable:S,uint32_nullable:I?,uint32_nonnullable:I,uint64_nullable:L?,uint64_nonnullable:L,float32_nullable:f?,float32_nonnullable:f,float64_nullable:g?,float64_nonnullable:g>"},
    {"cpp-21.0.0/generated_primitive_no_batches.stream",
     "+s<bool_nullable:b?,bool_nonnullable:b,int8_nullable:c?,int8_nonnullable:c,int16_nullable:s?,int16_nonnullable:s,int32_nullable:i?,int32_nonnullable:i,int64_nullable:l?,int64_nonnullable:l,uint8_nullable:C?,uint8_nonnullable:C,uint16_nullable:S?,uint16_nonnullable:S,uint32_nullable:I?,uint32_nonnullable:I,uint64_nullable:L?,uint64_nonnullable:L,float32_nullable:f?,float32_nonnullable:f,float64_nullable:g?,float64_nonnullable:g>"},
    {"cpp-21.0.0/generated_primitive_zerolength.stream",
     "+s<bool_nullable:b?,bool_nonnullable:b,int8_nullable:c?,int8_nonnullable:c,int16_nullable:s?,int16_nonnullable:s,int32_nullable:i?,int32_nonnullable:i,int64_nullable:l?,int64_nonnullable:l,uint8_nullable:C?,uint8_nonnullable:C,uint16_nullable:S?,uint16_nonnullable:S,uint32_nullable:I?,uint32_nonnullable:I,uint64_nullable:L?,uint64_nonnullable:L,float32_nullable:f?,float32_nonnullable:f,float64_nullable:g?,float64_nonnullable:g>"},
    {"cpp-21.0.0/generated_recursive_nested.stream",
     "+s<lists_list:+l?<inner_list:+l?<item:s?>>,structs_list:+l?<inner_struct:+s?<f1:i?,f2:u?>>>"},
    {"cpp-21.0.0/generated_run_end_encoded.stream",
     "+s<ree16_int32:+r?<run_ends:s,values:i?>,ree32_utf8:+r?<run_ends:i,values:u?>,ree64_float32:+r?<run_ends:l,values:f?>,ree16_bool:+r?<run_ends:l,values:b?>,bool:b?>"},
    {"cpp-21.0.0/generated_union.stream",
     "+s<sparse_1:+us:5,7?<f1:i?,f2:u?>,dense_1:+ud:10,20?<f1:s?,f2:z?>,sparse_2:+us:5,7<f1:f,f2:b?>,dense_2:+ud:42,43,44<f1:C,f2:S?,f3:n?>>"},
};

static const char *render(const struct ArrowSchema *s, struct basalt_buffer *buf)
{
    buf->size = 0;
    ipc_test_render(s, buf, false);
    if (basalt_buffer_append(buf, "", 1, NULL) != BASALT_OK)
        abort();
    return (const char *)buf->data;
}

TEST(ipc_integration_gold_schemas)
{
    char rel[256];
    struct basalt_error err;
    struct basalt_buffer buf, again;
    basalt_buffer_init(&buf);
    basalt_buffer_init(&again);
    size_t checked = 0;
    for (size_t i = 0; i < sizeof gold / sizeof gold[0]; i++) {
        snprintf(rel, sizeof rel, "arrow-ipc/integration/%s", gold[i].path);
        size_t len;
        uint8_t *data = bt_read_file(bt_testdata_path(rel), &len);
        CHECK_MSG(data != NULL, "cannot read %s", rel);
        struct ArrowSchema s, back;
        struct basalt_arrow_ipc_schema_info info;
        basalt_status st = basalt_arrow_ipc_schema_decode(data, len, &s, &info, &err);
        basalt_free(data);
        CHECK_MSG(st == BASALT_OK, "%s: %s", rel, err.message);
        CHECK_MSG(strcmp(render(&s, &buf), gold[i].expected) == 0, "%s:\n  got  %s\n  want %s",
                  rel, (const char *)buf.data, gold[i].expected);
        CHECK_OK(basalt_arrow_schema_validate(&s, &err), &err);
        /* The big-endian producer says so; files before 1.0 predate V5. */
        CHECK_EQ(info.big_endian, strncmp(gold[i].path, "1.0.0-bigendian", 15) == 0);
        CHECK_MSG(info.metadata_version == (strncmp(gold[i].path, "0.", 2) == 0 ? 3 : 4),
                  "%s: metadata version %d", rel, (int)info.metadata_version);
        /* Re-encoded by basalt and decoded again: the same schema. */
        again.size = 0;
        CHECK_OK(basalt_arrow_ipc_schema_encode(&s, &again, &err), &err);
        CHECK_OK(basalt_arrow_ipc_schema_decode(again.data, again.size, &back, NULL, &err), &err);
        CHECK_STR(render(&back, &buf), gold[i].expected);
        basalt_arrow_schema_release(&back);
        basalt_arrow_schema_release(&s);
        checked++;
    }
    CHECK(checked >= 70);
    basalt_buffer_reset(&buf);
    basalt_buffer_reset(&again);
}
